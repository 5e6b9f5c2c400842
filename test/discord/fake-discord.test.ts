import { Client, Events, GatewayIntentBits, Partials } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeDiscord, nextSnowflake, shardOf } from '../helpers/fake-discord.js';

describe('fake Discord (REST + gateway)', () => {
  let fake: FakeDiscord | undefined;
  let client: Client | undefined;
  const more: Client[] = [];
  afterEach(async () => {
    await client?.destroy();
    await Promise.all(more.splice(0).map((c) => c.destroy()));
    await fake?.close();
  });

  it('lets the real discord.js client log in, receive a message and answer it', async () => {
    fake = await FakeDiscord.start();
    client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
      partials: [Partials.Channel],
      rest: { api: fake.apiUrl },
    });
    const ready = new Promise((r) => client!.once(Events.ClientReady, r));
    await client.login('fake-token');
    await ready;
    expect(client.user?.id).toBe(fake.botId);
    expect(client.guilds.cache.get(fake.guildId)?.channels.cache.has(fake.channelId)).toBe(true);

    client.on(Events.MessageCreate, async (message) => {
      if (message.author.bot) return;
      if (!message.channel.isSendable()) return;
      await message.channel.sendTyping();
      const sent = await message.channel.send({
        content: `echo ${message.content}`,
        allowedMentions: { parse: [] },
      });
      await sent.edit({ content: 'edited', allowedMentions: { parse: [] } });
    });
    fake.dispatch('MESSAGE_CREATE', {
      id: '111',
      channel_id: fake.channelId,
      guild_id: fake.guildId,
      ...userMessage('hi'),
    });
    const message = await fake.waitFor(() =>
      fake!.messagesIn(fake!.channelId).find((m) => m.content === 'edited'),
    );
    expect(message.contents).toEqual(['echo hi', 'edited']);
    expect(fake.callsTo('POST /channels/:channel/typing')).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });

  it('with a global limit, answers the call over it 429 global for the whole bot token, as Discord does', async () => {
    fake = await FakeDiscord.start({ globalLimit: { max: 2, perMs: 60_000 } });
    const call = (path: string, token = 'Bot one') =>
      fetch(`${fake!.apiUrl}/v10${path}`, { headers: { authorization: token } });
    expect((await call('/users/@me')).status).toBe(200);
    expect((await call(`/channels/${fake.channelId}`)).status).toBe(200);
    // Another bot has its own limit; interaction endpoints are not bound by it.
    expect((await call('/users/@me', 'Bot two')).status).toBe(200);
    expect((await call('/interactions/1/t/callback')).status).not.toBe(429);
    const refused = await call('/users/@me');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-global')).toBe('true');
    expect(refused.headers.get('x-ratelimit-scope')).toBe('global');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await refused.json()) as { retry_after: number };
    expect(body).toMatchObject({ message: 'You are being rate limited.', global: true });
    expect(body.retry_after).toBeGreaterThan(0);
    expect(fake.globalRefusals.map((c) => c.route)).toEqual(['GET /users/@me']);
  });

  it('gives each shard its own servers and their events only', async () => {
    const guilds = [0, 1].map((shard) => {
      for (;;) {
        const id = nextSnowflake();
        if (shardOf(id, 2) === shard) return id;
      }
    });
    fake = await FakeDiscord.start({ guildId: guilds[0]!, otherGuildIds: [guilds[1]!] });
    const channels = guilds.map((guildId) => {
      const id = nextSnowflake();
      fake!.addChannel({ id, type: 0, guild_id: guildId, name: 'c', position: 0, permission_overwrites: [] });
      return id;
    });
    const heard: string[][] = [[], []];
    for (const shard of [0, 1]) {
      const c = new Client({
        intents: [
          GatewayIntentBits.Guilds,
          GatewayIntentBits.GuildMessages,
          GatewayIntentBits.MessageContent,
        ],
        rest: { api: fake.apiUrl },
        shards: [shard],
        shardCount: 2,
      });
      more.push(c);
      c.on(Events.MessageCreate, (m) => heard[shard]!.push(m.content));
      const ready = new Promise((r) => c.once(Events.ClientReady, r));
      await c.login('fake-token');
      await ready;
      expect([...c.guilds.cache.keys()]).toEqual([guilds[shard]]);
    }
    expect(fake.identifies.map((i) => i.shard)).toEqual([
      [0, 2],
      [1, 2],
    ]);
    // Each socket delivers in order: a wrong delivery of an `in` would come before that shard's `end`.
    for (const [n, i] of [0, 1, 0, 1].entries()) {
      const guildId = guilds[i]!;
      fake.post({
        id: nextSnowflake(),
        channel_id: channels[i],
        guild_id: guildId,
        ...userMessage(`${n < 2 ? 'in' : 'end'} ${i}`),
      });
    }
    await fake.waitFor(() => heard.every((h, shard) => h.includes(`end ${shard}`)));
    expect(heard).toEqual([
      ['in 0', 'end 0'],
      ['in 1', 'end 1'],
    ]);
  });
});

/** The fields of a MESSAGE_CREATE from a user (id, channel and guild are the caller's). */
function userMessage(content: string) {
  return {
    channel_type: 0,
    type: 0,
    content,
    author: { id: '42', username: 'u', discriminator: '0' },
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    timestamp: new Date().toISOString(),
    tts: false,
    pinned: false,
    mention_everyone: false,
    flags: 0,
    components: [],
  };
}
