/**
 * ALLOWED_ROLES / ALLOWED_USERS / BLOCKED_USERS through discord.js against the fake Discord gateway
 * and REST API: a member without an allowed role gets no answer (not even a thread), a member with
 * one is answered, a DM then needs the user in ALLOWED_USERS, and a blocked user is ignored.
 */
import { afterEach, expect, it } from 'vitest';
import { textReply } from '../helpers/fake-openai-server.js';
import { describeWithShared } from '../helpers/fixtures.js';
import {
  closeE2E,
  dmMessage,
  type E2E,
  fixtureMessage,
  SENDING_ROUTES,
  startE2E,
} from './discord-test-kit.js';

const ROLE = '1460000000000000777';
let env: E2E | undefined;
afterEach(async () => {
  await closeE2E(env);
  env = undefined;
});

/** A mention from the fixture member holding `roles`. */
function mentionWith(roles: string[]) {
  const m = fixtureMessage('gatewayAIMention');
  return { ...m, member: { ...m.member, roles } };
}
const sent = (e: E2E) => e.fake.calls.filter((c) => SENDING_ROUTES.has(c.route));
/** Waits long enough for a reply that should not come (the answered case shows it would arrive). */
const settle = () => new Promise((r) => setTimeout(r, 400));

describeWithShared('Discord access lists', () => {
  it('a member without an allowed role gets no answer and no thread', async () => {
    env = await startE2E({ ALLOWED_ROLES: ROLE }, { roles: [{ id: ROLE, name: 'scout-users' }] });
    env.harness.llm.fallback = () => textReply('should not be sent');
    env.fake.dispatch('MESSAGE_CREATE', mentionWith([]));
    await settle();
    expect(env.harness.llm.requests).toHaveLength(0);
    expect(sent(env)).toEqual([]);
  });

  it('a member with an allowed role is answered', async () => {
    env = await startE2E({ ALLOWED_ROLES: ROLE }, { roles: [{ id: ROLE, name: 'scout-users' }] });
    env.harness.llm.enqueue(textReply('Role holders get answers.'));
    const mention = mentionWith([ROLE]);
    env.fake.dispatch('MESSAGE_CREATE', mention);
    await env.fake.waitFor(
      () =>
        env!.fake.messagesIn(mention.id).some((m) => m.content.includes('Role holders get answers.')) ||
        undefined,
      8000,
      'the answer',
    );
  });

  it('with ALLOWED_ROLES set, a DM needs the user in ALLOWED_USERS', async () => {
    env = await startE2E({ ALLOWED_ROLES: ROLE });
    env.fake.dispatch('MESSAGE_CREATE', dmMessage('hello'));
    await settle();
    expect(env.harness.llm.requests).toHaveLength(0);
    await closeE2E(env);

    const author = fixtureMessage('gatewayThreadUserHey').author.id as string;
    env = await startE2E({ ALLOWED_ROLES: ROLE, ALLOWED_USERS: author });
    env.harness.llm.enqueue(textReply('Hello, listed user.'));
    const dm = dmMessage('hello');
    env.fake.dispatch('MESSAGE_CREATE', dm);
    await env.fake.waitFor(
      () =>
        env!.fake.messagesIn(dm.channel_id).some((m) => m.content.includes('Hello, listed user.')) ||
        undefined,
      8000,
      'the DM answer',
    );
  });

  it('a blocked user gets no answer, even with an allowed role', async () => {
    const mention = mentionWith([ROLE]);
    env = await startE2E(
      { ALLOWED_ROLES: ROLE, BLOCKED_USERS: mention.author.id },
      { roles: [{ id: ROLE, name: 'scout-users' }] },
    );
    env.fake.dispatch('MESSAGE_CREATE', mention);
    await settle();
    expect(env.harness.llm.requests).toHaveLength(0);
    expect(sent(env)).toEqual([]);
  });
});
