import { Client, Events, GatewayIntentBits, Partials } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../helpers/fake-discord.js';

describe('fake Discord (REST + gateway)', () => {
  let fake: FakeDiscord | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    await client?.destroy();
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
      channel_type: 0,
      type: 0,
      content: 'hi',
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
    });
    const message = await fake.waitFor(() =>
      fake!.messagesIn(fake!.channelId).find((m) => m.content === 'edited'),
    );
    expect(message.contents).toEqual(['echo hi', 'edited']);
    expect(fake.callsTo('POST /channels/:channel/typing')).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });
});
