/**
 * SPEC 1.2: a mention opens a thread by default, "configurable per channel: reply in place". End to
 * end with the real core behind the real Discord surface: `/config thread off` (the slash command's
 * `thread` option) switches the channel, and the next mention is answered in the channel itself.
 */
import { afterEach, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import { buildSlashCommands } from '../../adapters/discord/commands.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { closeE2E, type E2E, fixtureMessage, meta, slashCommand, startE2E } from './discord-test-kit.js';

let env: E2E | undefined;
afterEach(async () => {
  await closeE2E(env);
  env = undefined;
});

/** Runs `/config` with the given `thread` option value and returns the ephemeral reply text. */
async function config(e: E2E, value?: string): Promise<string> {
  const { token } = e.fake.interact(
    slashCommand('config', value === undefined ? [] : [{ name: 'thread', type: 3, value }]),
  );
  const reply = await e.fake.waitFor(() => e.fake.originalResponse(token)?.content || undefined, 8000);
  return reply;
}

const settingsKey = `discord:${meta.guildId}:${meta.channelId}`;

describeWithShared('Discord: /config thread on|off', () => {
  it('registers /config with an optional thread choice whose values are the core arguments', () => {
    const command = buildSlashCommands().find((c) => c.name === 'config');
    expect(command?.options?.[0]).toMatchObject({
      name: 'thread',
      type: 3,
      required: false,
      choices: [
        expect.objectContaining({ value: 'thread on', name: 'Reply in a thread' }),
        expect.objectContaining({ value: 'thread off', name: 'Reply in place' }),
      ],
    });
  });

  it('thread off: the next mention in the channel is answered in place, without opening a thread', async () => {
    env = await startE2E();
    expect(await config(env, 'thread off')).toContain('answered in place');
    expect((await env.harness.scout.getSettings(settingsKey)).replyInThread).toBe(false);
    expect(await config(env)).toContain('Discord mentions: answered in place');

    env.harness.llm.enqueue(textReply('Answered right here.'));
    const mention = fixtureMessage('gatewayMention');
    expect(mention.channel_id).toBe(meta.channelId);
    env.fake.dispatch('MESSAGE_CREATE', mention);
    const answer = await env.fake.waitFor(
      () => env!.fake.messagesIn(meta.channelId).find((m) => m.content.includes('Answered right here.')),
      8000,
      'the answer in the channel',
    );
    expect(answer).toBeDefined();
    expect(env.fake.callsTo('POST /channels/:channel/messages/:message/threads')).toHaveLength(0);
    expect(env.fake.messagesIn(mention.id)).toHaveLength(0);

    // And back: `thread on` opens a thread again.
    expect(await config(env, 'thread on')).toContain('new thread');
    env.harness.llm.enqueue(textReply('Answered in a thread.'));
    const second = fixtureMessage('gatewayMention');
    env.fake.dispatch('MESSAGE_CREATE', second);
    await env.fake.waitFor(
      () => env!.fake.messagesIn(second.id).find((m) => m.content.includes('Answered in a thread.')),
      8000,
      'the answer in the new thread',
    );
    expect(env.fake.callsTo('POST /channels/:channel/messages/:message/threads')).toHaveLength(1);
  });

  it('with ADMIN_USERS set, only an admin can change it', async () => {
    env = await startE2E({ ADMIN_USERS: 'U_SOMEONE_ELSE' });
    expect(await config(env, 'thread off')).toContain('Only Scout administrators');
    expect((await env.harness.scout.getSettings(settingsKey)).replyInThread).toBe(true);
    // Showing the settings stays open to everyone.
    expect(await config(env)).toContain('Discord mentions: answered in a new thread');
  });
});
