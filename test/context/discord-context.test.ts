/**
 * Discord context end to end: the real core and discord.js on the fake Discord (gateway, REST
 * message history, CDN). Reply chains, thread reading, who Scout answers in a thread it did not
 * open, and attachments — asserted on what the model is sent and what Discord receives.
 */
import { afterEach, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import { nextSnowflake } from '../helpers/fake-discord.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { closeE2E, type E2E, fixtureMessage, meta, startE2E } from '../discord/discord-test-kit.js';
import { allText, type ElsewhereServer, makePng, startElsewhere } from './context-kit.js';

let env: E2E | undefined;
let elsewhere: ElsewhereServer | undefined;
afterEach(async () => {
  await closeE2E(env);
  await elsewhere?.close();
  env = undefined;
  elsewhere = undefined;
});

const ALICE = {
  id: '1033044521375764530',
  username: 'alice',
  global_name: 'Alice',
  discriminator: '0',
  avatar: null,
};
const BOB = {
  id: '1033044521375764599',
  username: 'bob',
  global_name: 'Bob',
  discriminator: '0',
  avatar: null,
};

/** A message from a person in `channelId` (a guild channel or thread). */
function said(
  e: E2E,
  channelId: string,
  author: typeof ALICE,
  content: string,
  extra: Record<string, unknown> = {},
) {
  return e.fake.post(
    fixtureMessage('gatewayThreadUserHey', {
      id: nextSnowflake(),
      channel_id: channelId,
      author,
      content,
      mentions: [],
      ...extra,
    }),
  );
}

const mentionOf = (e: E2E) => `<@${e.fake.botId}>`;
const replyTo = (id: string, channelId: string) => ({
  message_reference: { message_id: id, channel_id: channelId, guild_id: meta.guildId },
});

/** Resolves once the LLM has been asked `n` times and every turn has rendered its final message. */
async function answered(e: E2E, n: number) {
  await e.fake.waitFor(() => e.harness.llm.requests.length >= n, 8000, `${n} model requests`);
  await e.fake.waitFor(
    () =>
      [...e.fake.messages.values()].filter((m) =>
        m.components[0]?.components?.[0]?.custom_id?.startsWith('scout_feedback:'),
      ).length >= n,
    8000,
    `${n} finished answers`,
  );
}

/** A thread a person opened (not Scout), known to the gateway. */
function humanThread(e: E2E): string {
  const id = nextSnowflake();
  const thread = {
    id,
    type: 11,
    guild_id: meta.guildId,
    parent_id: e.fake.channelId,
    name: 'lunch and deploys',
    owner_id: ALICE.id,
    flags: 0,
    rate_limit_per_user: 0,
    message_count: 0,
    member_count: 2,
    total_message_sent: 0,
    thread_metadata: {
      archived: false,
      locked: false,
      auto_archive_duration: 1440,
      archive_timestamp: new Date().toISOString(),
    },
  };
  e.fake.addChannel(thread);
  e.fake.dispatch('THREAD_CREATE', { ...thread, newly_created: true });
  return id;
}

// The messages are built from recorded gateway payloads (../shared/fixtures/discord).
describeWithShared('Discord: reply chains and threads', () => {
  it('a reply chain of 3 is read, oldest first, by display name', async () => {
    env = await startE2E();
    env.harness.llm.fallback = () => textReply('55k in total.');
    const channel = env.fake.channelId;
    const a = said(env, channel, ALICE, 'The budget is 40k');
    const b = said(env, channel, BOB, 'Plus 10k for travel', replyTo(a.id, channel));
    const c = said(env, channel, ALICE, 'And 5k for hardware', replyTo(b.id, channel));
    said(env, channel, BOB, `${mentionOf(env)} what is the total?`, replyTo(c.id, channel));
    await answered(env, 1);
    const body = allText(env.harness.llm.requests[0]!.body);
    expect(body).toMatch(/Alice: The budget is 40k.*Bob: Plus 10k for travel.*Alice: And 5k for hardware/);
    expect(body).toContain('what is the total?');
  });

  it('in a thread someone else opened: mentions and replies to Scout are answered, other messages are not', async () => {
    env = await startE2E();
    env.harness.llm.fallback = (req) => textReply(`answer ${req.messages.length}`);
    const thread = humanThread(env);
    said(env, thread, ALICE, 'Deploy failed with ECONNRESET');
    said(env, thread, BOB, `${mentionOf(env)} any idea why?`);
    await answered(env, 1);
    expect(allText(env.harness.llm.requests[0]!.body)).toContain('Alice: Deploy failed with ECONNRESET');

    said(env, thread, ALICE, 'lol anyway, lunch at 12?');
    // A reply to Scout's answer is for Scout, without a mention.
    const answer = [...env.fake.messages.values()].filter((m) => m.channel_id === thread).at(-1)!;
    said(env, thread, BOB, 'can you check the redis logs too?', replyTo(answer.id, thread));
    await answered(env, 2);
    // Give a wrongly answered "lunch" message time to show up.
    await new Promise((r) => setTimeout(r, 300));
    expect(env.harness.llm.requests).toHaveLength(2);
    const last = env.harness.llm.requests[1]!.body.messages.at(-1);
    expect(last.content).toBe('can you check the redis logs too?');
  });
});

describeWithShared('Discord: attachments', () => {
  it('a CDN image reaches a vision model; a link outside the CDN is skipped with a notice and never fetched', async () => {
    elsewhere = await startElsewhere();
    env = await startE2E({ AGENT_FUNCTION_CALL_MODEL: 'openai/gpt-4o' });
    env.harness.llm.fallback = () => textReply('A blue square.');
    const good = env.fake.addAttachment('square.png', 'image/png', await makePng());
    const bad = {
      ...env.fake.addAttachment('tracker.png', 'image/png', await makePng()),
      url: `${elsewhere.url}/tracker.png`,
    };
    said(env, env.fake.channelId, ALICE, `${mentionOf(env)} what are these?`, { attachments: [good, bad] });
    await answered(env, 1);
    const body = allText(env.harness.llm.requests[0]!.body);
    expect(body).toContain('data:image/png;base64,');
    expect(elsewhere.hits).toEqual([]);
    expect(env.fake.downloads).toHaveLength(1);
    expect(env.fake.downloads[0]!.authorization).toBeUndefined();
    const shown = [...env.fake.messages.values()]
      .map((m) => `${m.content} ${JSON.stringify(m.embeds)} ${JSON.stringify(m.components)}`)
      .join('\n');
    expect(shown).toContain('tracker.png');
  });

  it('an image-only mention is a question about the image, in a thread named after it', async () => {
    env = await startE2E({ AGENT_FUNCTION_CALL_MODEL: 'openai/gpt-4o' });
    env.harness.llm.fallback = () => textReply('A blue square.');
    const image = env.fake.addAttachment('diagram.png', 'image/png', await makePng());
    said(env, env.fake.channelId, ALICE, mentionOf(env), { attachments: [image] });
    await answered(env, 1);
    expect(env.fake.callsTo('POST /channels/:channel/messages/:message/threads')[0]!.body.name).toBe(
      'diagram.png',
    );
    expect(allText(env.harness.llm.requests[0]!.body)).toContain('data:image/png;base64,');
  });
});
