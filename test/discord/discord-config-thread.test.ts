/**
 * SPEC 1.2: a mention opens a thread by default, "configurable per channel: reply in place". End to
 * end with the real core behind the real Discord surface: `/config thread off` (the slash command's
 * `thread` option) switches the channel, and the next mention is answered in the channel itself.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordSurface, type DiscordSurface } from '../../adapters/discord/discord-surface.js';
import { buildSlashCommands } from '../../adapters/discord/commands.js';
import { silentLogger } from '../../src/logger.js';
import { FakeDiscord } from '../helpers/fake-discord.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';
import { fixtureInteraction, fixtureMessage, meta } from './discord-test-kit.js';

interface E2E {
  fake: FakeDiscord;
  harness: TestScout;
  surface: DiscordSurface;
}
let env: E2E | undefined;
afterEach(async () => {
  await env?.surface.stop();
  await env?.harness.close();
  await env?.fake.close();
  env = undefined;
});

async function startE2E(extraEnv: Record<string, string> = {}): Promise<E2E> {
  const fake = await FakeDiscord.start();
  const harness = await startTestScout({
    env: { DISCORD_TOKEN: 'fake-discord-token', DISCORD_API_URL: fake.apiUrl, ...extraEnv },
  });
  const surface = createDiscordSurface({
    core: harness.scout,
    config: harness.config,
    logger: silentLogger,
    stores: harness.stores,
    editIntervalMs: 20,
    typingIntervalMs: 50,
  });
  await surface.start();
  return { fake, harness, surface };
}

/** Runs `/config` with the given `thread` option value and returns the ephemeral reply text. */
async function config(e: E2E, value?: string): Promise<string> {
  const f = fixtureInteraction('buttonClickHello');
  const { token } = e.fake.interact({
    type: 2,
    channel_id: meta.channelId,
    guild_id: meta.guildId,
    channel: { id: meta.channelId, type: 0, guild_id: meta.guildId, name: 'general' },
    member: f.member,
    data: {
      id: '1',
      name: 'config',
      type: 1,
      options: value === undefined ? [] : [{ name: 'thread', type: 3, value }],
    },
  });
  const reply = await e.fake.waitFor(() => e.fake.originalResponse(token)?.content || undefined, 8000);
  return reply;
}

const settingsKey = `discord:${meta.guildId}:${meta.channelId}`;

describe('Discord: /config thread on|off', () => {
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
