import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeWithShared, itWithShared } from '../helpers/fixtures.js';
import { COMMAND_NAMES } from '../../src/core/commands.js';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { FakeDiscord, INTENT_MESSAGE_CONTENT } from '../helpers/fake-discord.js';
import {
  dmMessage,
  fixtureInteraction,
  fixtureMessage,
  type Kit,
  meta,
  ScriptedCore,
  SENDING_ROUTES,
  settingsWith,
  slashCommand,
  startKit,
} from './discord-test-kit.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

/** Waits until the core has finished a turn whose answer contains `text` in `channelId`. */
function answerIn(k: Kit, channelId: string, text: string) {
  return k.fake.waitFor(
    // A finished answer: its text and the 👍/👎 row (sent in the same final edit).
    () =>
      k.fake
        .messagesIn(channelId)
        .find(
          (m) =>
            m.content.includes(text) &&
            m.components[0]?.components?.some((c: { custom_id?: string }) =>
              c.custom_id?.startsWith('scout_feedback:'),
            ),
        ),
    5000,
    `answer "${text}" in ${channelId}`,
  );
}

describeWithShared('Discord surface: triggers', () => {
  it('a mention opens a thread on the message and the answer lands in it', async () => {
    const core = new ScriptedCore();
    kit = await startKit(core);
    const mention = fixtureMessage('gatewayMention', { content: `<@${meta.botId}> What is love?` });
    kit.fake.dispatch('MESSAGE_CREATE', mention);

    await answerIn(kit, mention.id, 'Answer to: What is love?');
    const [threadCall] = kit.fake.callsTo('POST /channels/:channel/messages/:message/threads');
    expect(threadCall?.path).toBe(`/channels/${meta.channelId}/messages/${mention.id}/threads`);
    expect(threadCall?.body.name).toBe('What is love?');
    expect(core.received).toHaveLength(1);
    expect(core.received[0]).toMatchObject({
      text: 'What is love?',
      channelId: `discord:${meta.guildId}:${meta.channelId}`,
      conversationId: `discord:${meta.guildId}:${mention.id}`,
      userId: meta.userId,
    });
    // Nothing was posted in the channel itself; the typing indicator ran in the thread.
    expect(kit.fake.messagesIn(meta.channelId)).toEqual([]);
    expect(kit.fake.callsTo('POST /channels/:channel/typing')[0]?.path).toBe(
      `/channels/${mention.id}/typing`,
    );
  });

  it('answers a follow-up in its thread without a mention, also after a restart, and ignores its own posts', async () => {
    const core = new ScriptedCore();
    kit = await startKit(core);
    const mention = fixtureMessage('gatewayMention', {}, true); // id = the fixture thread id
    kit.fake.dispatch('MESSAGE_CREATE', mention);
    await answerIn(kit, meta.threadId, 'Answer to: Hey');

    kit.fake.dispatch('MESSAGE_CREATE', fixtureMessage('gatewayThreadNice'));
    await answerIn(kit, meta.threadId, 'Answer to: Nice');
    expect(core.received.map((m) => m.conversationId)).toEqual([
      `discord:${meta.guildId}:${meta.threadId}`,
      `discord:${meta.guildId}:${meta.threadId}`,
    ]);

    // A restart: a new client on the same store still owns the thread.
    const { fake, stores } = kit;
    await kit.surface.stop();
    const core2 = new ScriptedCore();
    const restarted = await startKit(core2, { fake, stores });
    kit = {
      ...restarted,
      close: async () => {
        await restarted.close();
        await stores.close();
        await fake.close();
      },
    };
    fake.dispatch('MESSAGE_CREATE', fixtureMessage('gatewayThreadNum1', { content: 'And then?' }));
    await answerIn(kit, meta.threadId, 'Answer to: And then?');
    expect(core2.received).toHaveLength(1);
    expect(core.received).toHaveLength(2); // the bot's echoed posts never became turns
  });

  it('ignores messages in threads it does not own and channel messages without a mention', async () => {
    const core = new ScriptedCore();
    kit = await startKit(core);
    kit.fake.dispatch('MESSAGE_CREATE', fixtureMessage('gatewayThreadNice'));
    kit.fake.dispatch(
      'MESSAGE_CREATE',
      fixtureMessage('gatewayMention', { content: 'no mention here', mentions: [] }),
    );
    kit.fake.dispatch('MESSAGE_CREATE', fixtureMessage('gatewayThreadWelcome')); // another bot
    kit.fake.dispatch('MESSAGE_CREATE', dmMessage('ping'));
    await kit.fake.waitFor(() => core.received.length === 1, 5000, 'the DM turn');
    expect(core.received.map((m) => m.text)).toEqual(['ping']);
  });

  it('answers a DM in the DM channel', async () => {
    const core = new ScriptedCore();
    kit = await startKit(core);
    const dm = dmMessage('Hello in private');
    kit.fake.dispatch('MESSAGE_CREATE', dm);
    await answerIn(kit, dm.channel_id, 'Answer to: Hello in private');
    expect(core.received[0]).toMatchObject({
      channelId: `discord:dm:${dm.channel_id}`,
      conversationId: `discord:dm:${dm.channel_id}`,
    });
    expect(kit.fake.callsTo('POST /channels/:channel/messages/:message/threads')).toEqual([]);
  });

  it('opens no thread and answers nothing in a channel outside ALLOWED_CHANNELS', async () => {
    const core = new ScriptedCore();
    kit = await startKit(core, { env: { ALLOWED_CHANNELS: '1111111111111111111' } });
    kit.fake.dispatch('MESSAGE_CREATE', fixtureMessage('gatewayMention'));
    // The allowed channel still works, so the refusal is not just a slow start.
    const allowedKit = await startKit(core, { env: { ALLOWED_CHANNELS: meta.channelId }, fake: kit.fake });
    const mention = fixtureMessage('gatewayMention');
    kit.fake.dispatch('MESSAGE_CREATE', mention);
    await answerIn(allowedKit, mention.id, 'Answer to: Hey');
    await allowedKit.close();
    expect(core.received).toHaveLength(1);
    expect(kit.fake.callsTo('POST /channels/:channel/messages/:message/threads')).toHaveLength(1);
  });

  it('replies in place when the channel turned threads off', async () => {
    const core = new ScriptedCore();
    core.settings = settingsWith({ replyInThread: false });
    kit = await startKit(core);
    kit.fake.dispatch('MESSAGE_CREATE', fixtureMessage('gatewayMention'));
    await answerIn(kit, meta.channelId, 'Answer to: Hey');
    expect(kit.fake.callsTo('POST /channels/:channel/messages/:message/threads')).toEqual([]);
    expect(core.received[0]?.conversationId).toBe(`discord:${meta.guildId}:${meta.channelId}`);
  });

  it('answers a mention of its managed role', async () => {
    const core = new ScriptedCore();
    kit = await startKit(core);
    // The bot's integration role, as Discord creates it (tags.bot_id), arrives with the guild.
    kit.fake.dispatch('GUILD_ROLE_CREATE', {
      guild_id: meta.guildId,
      role: {
        id: meta.roleId,
        name: 'Scout',
        permissions: '0',
        position: 1,
        color: 0,
        managed: true,
        tags: { bot_id: meta.botId },
      },
    });
    const roleMention = fixtureMessage('gatewayRoleMention');
    kit.fake.dispatch('MESSAGE_CREATE', roleMention);
    await answerIn(kit, roleMention.id, 'Answer to: AI Still there?');
  });
});

describeWithShared('Discord surface: rendering', () => {
  it('sends allowed_mentions with an empty parse on every message call, so @everyone pings no one', async () => {
    const core = new ScriptedCore();
    const evil = 'Hey @everyone and @here, <@&1457473602180878604> and <@1033044521375764530> look!';
    core.script = () => [
      { type: 'step-start', id: 's1', kind: 'search', title: '🔍 Searching: @everyone' },
      { type: 'step-finish', id: 's1', status: 'done', body: 'result mentioning @here' },
      { type: 'text-delta', text: evil },
      { type: 'answer', text: evil, sources: [] },
    ];
    kit = await startKit(core);
    const mention = fixtureMessage('gatewayMention');
    kit.fake.dispatch('MESSAGE_CREATE', mention);
    const answer = await answerIn(kit, mention.id, 'look!');
    expect(answer.content).toContain('@everyone');

    const sending = kit.fake.calls.filter((c) => SENDING_ROUTES.has(c.route));
    expect(sending.length).toBeGreaterThanOrEqual(2);
    for (const call of sending) expect(call.allowedMentions, `${call.route}`).toEqual({ parse: [] });
    expect(kit.fake.pings).toEqual([]);
    expect(kit.fake.violations).toEqual([]);
  });

  it('counts every message post and edit in scout_edits_sent_total{surface="discord"}', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const core = new ScriptedCore();
    core.script = (m) => [
      { type: 'step-start', id: 's1', kind: 'search', title: '🔍 Searching: love' },
      { type: 'step-finish', id: 's1', status: 'done', body: 'three results' },
      { type: 'text-delta', text: 'Answer to: ' },
      { type: 'text-delta', text: m.text },
      { type: 'answer', text: `Answer to: ${m.text}`, sources: [] },
    ];
    kit = await startKit(core, { onEdit: () => metrics.recordEdit('discord') });
    const mention = fixtureMessage('gatewayMention', { content: `<@${meta.botId}> What is love?` });
    kit.fake.dispatch('MESSAGE_CREATE', mention);
    await answerIn(kit, mention.id, 'Answer to: What is love?');
    const messageCalls = kit.fake.calls.filter(
      (c) =>
        c.route === 'POST /channels/:channel/messages' ||
        c.route === 'PATCH /channels/:channel/messages/:message',
    );
    expect(messageCalls.length).toBeGreaterThanOrEqual(3);
    expect(await metrics.render()).toContain(
      `scout_edits_sent_total{surface="discord"} ${messageCalls.length}`,
    );
  });

  it('splits a 5,000-character answer into messages under 2,000 characters with code fences intact', async () => {
    const core = new ScriptedCore();
    const code = [
      '```ts',
      ...Array.from({ length: 30 }, (_, i) => `const value${i} = compute(${i}); // line ${i}`),
      '```',
    ].join('\n');
    const paragraphs = Array.from(
      { length: 9 },
      (_, i) => `Paragraph ${i}: ${'lorem ipsum dolor sit amet '.repeat(12).trim()}.`,
    );
    const long = [paragraphs.slice(0, 4).join('\n\n'), code, paragraphs.slice(4).join('\n\n'), code].join(
      '\n\n',
    );
    expect(long.length).toBeGreaterThan(5000);
    core.script = () => [
      { type: 'text-delta', text: long.slice(0, 2500) },
      { type: 'text-delta', text: long.slice(2500) },
      { type: 'answer', text: long, sources: [] },
    ];
    kit = await startKit(core);
    const mention = fixtureMessage('gatewayMention');
    kit.fake.dispatch('MESSAGE_CREATE', mention);
    await kit.fake.waitFor(() =>
      kit!.fake
        .messagesIn(mention.id)
        .find((m) => m.components[0]?.components[0]?.custom_id.startsWith('scout_feedback:')),
    );

    const answers = kit.fake.messagesIn(mention.id).slice(1); // the first message holds the steps
    expect(answers.length).toBeGreaterThanOrEqual(3);
    for (const message of answers) {
      expect(message.content.length).toBeLessThanOrEqual(2000);
      expect((message.content.match(/```/g) ?? []).length % 2).toBe(0);
      expect(message.flags & (1 << 2)).toBe(1 << 2); // link previews suppressed
    }
    const joined = answers.map((m) => m.content).join('\n');
    for (let i = 0; i < 30; i++) expect(joined).toContain(`const value${i} = compute(${i}); // line ${i}`);
    for (let i = 0; i < 9; i++) expect(joined).toContain(`Paragraph ${i}:`);
    expect(kit.fake.violations).toEqual([]);
  });

  it('waits out a 429 with retry_after and the answer still arrives', async () => {
    const core = new ScriptedCore();
    kit = await startKit(core);
    kit.fake.rateLimitOnce('POST /channels/:channel/messages', 0.2);
    const mention = fixtureMessage('gatewayMention');
    kit.fake.dispatch('MESSAGE_CREATE', mention);
    await answerIn(kit, mention.id, 'Answer to: Hey');
    const posts = kit.fake.callsTo('POST /channels/:channel/messages');
    expect(posts[0]?.status).toBe(429);
    // The limited request itself is re-sent (other posts may overtake it meanwhile).
    const limitedBody = JSON.stringify(posts[0]?.body);
    const retried = posts.find((c, i) => i > 0 && c.status === 200 && JSON.stringify(c.body) === limitedBody);
    expect(retried).toBeDefined();
    expect(retried!.at - posts[0]!.at).toBeGreaterThanOrEqual(200);
    expect(
      kit.fake
        .messagesIn(mention.id)
        .map((m) => m.content)
        .join('\n'),
    ).toContain('Answer to: Hey');
  });

  it('Show details / Hide details re-render the finished steps message', async () => {
    const core = new ScriptedCore();
    core.script = () => [
      { type: 'step-start', id: 's1', kind: 'search', title: '🔍 Searching: rust async' },
      {
        type: 'step-finish',
        id: 's1',
        status: 'done',
        title: '🔍 Searched: rust async',
        body: 'Tokio — an async runtime',
      },
      { type: 'answer', text: 'Use tokio.', sources: [] },
    ];
    kit = await startKit(core);
    const mention = fixtureMessage('gatewayMention');
    kit.fake.dispatch('MESSAGE_CREATE', mention);
    await answerIn(kit, mention.id, 'Use tokio.');
    const steps = kit.fake.messagesIn(mention.id)[0]!;
    // The steps message's final edit is paced by its own interval: it may land after the answer.
    await kit.fake.waitFor(() => steps.content.includes('Searched: rust async'));
    expect(steps.content).toContain('Searched: rust async');
    expect(steps.content).not.toContain('Tokio');
    const toggle = steps.components[0].components.find((c: { custom_id: string }) =>
      c.custom_id.startsWith('scout_steps_toggle:'),
    );
    expect(toggle.label).toBe('Show details');
    expect(
      steps.components[0].components.some((c: { custom_id: string }) => c.custom_id === 'scout_stop'),
    ).toBe(false);

    const click = () =>
      kit!.fake.interact({
        type: 3,
        channel_id: mention.id,
        guild_id: meta.guildId,
        member: fixtureInteraction('buttonClickHello').member,
        ...(() => {
          const f = fixtureInteraction('buttonClickHello');
          return {
            channel: { ...f.channel, id: mention.id },
            message: { ...f.message, id: steps.id, channel_id: mention.id },
          };
        })(),
        data: { component_type: 2, custom_id: toggle.custom_id },
      });
    const first = click();
    await kit.fake.waitFor(() =>
      kit!.fake
        .callsTo('POST /interactions/:interaction/:token/callback')
        .find((c) => c.path.includes(first.id)),
    );
    expect(steps.content).toContain('Tokio — an async runtime');
    expect(steps.components[0].components[0].label).toBe('Hide details');
    const cb = kit.fake.callsTo('POST /interactions/:interaction/:token/callback').at(-1)!;
    expect(cb.body.type).toBe(7);
    expect(cb.body.data.allowed_mentions).toEqual({ parse: [] });

    const second = click();
    await kit.fake.waitFor(() =>
      kit!.fake
        .callsTo('POST /interactions/:interaction/:token/callback')
        .find((c) => c.path.includes(second.id)),
    );
    expect(steps.content).not.toContain('Tokio');
    expect(steps.components[0].components[0].label).toBe('Show details');
  });

  it('puts 👍/👎 under the final answer and acknowledges a vote ephemerally', async () => {
    const core = new ScriptedCore();
    kit = await startKit(core);
    const mention = fixtureMessage('gatewayMention');
    kit.fake.dispatch('MESSAGE_CREATE', mention);
    const answer = await answerIn(kit, mention.id, 'Answer to: Hey');
    const ids = answer.components[0].components.map((c: { custom_id: string }) => c.custom_id);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^scout_feedback:up:/);
    const f = fixtureInteraction('buttonClickHello');
    const { id } = kit.fake.interact({
      ...f,
      channel_id: mention.id,
      message: { ...f.message, id: answer.id },
      data: { component_type: 2, custom_id: ids[0] },
    });
    const cb = await kit.fake.waitFor(() =>
      kit!.fake.calls.find((c) => c.path.includes(`/interactions/${id}/`)),
    );
    expect(cb.body.type).toBe(4);
    expect(cb.body.data.flags & 64).toBe(64);
  });
});

describeWithShared('Discord surface: slash commands and buttons', () => {
  it('registers exactly the core command table, in the guild when DISCORD_GUILD_ID is set', async () => {
    kit = await startKit(new ScriptedCore(), { env: { DISCORD_GUILD_ID: meta.guildId } });
    const commands = kit.fake.commands.guild.get(meta.guildId) ?? [];
    expect(commands.map((c) => c.name).sort()).toEqual([...COMMAND_NAMES].sort());
    expect(kit.fake.commands.global).toEqual([]);
    // Guild commands without the bot-DM context (Discord refuses it there); global ones keep it.
    for (const command of commands) expect(command.contexts).toEqual([0]);
    const mode = commands.find((c) => c.name === 'mode');
    expect(mode.options[0].choices.map((c: { value: string }) => c.value)).toEqual(['chat', 'agent', 'plan']);
  });

  it('registers globally without DISCORD_GUILD_ID', async () => {
    kit = await startKit(new ScriptedCore());
    expect(kit.fake.commands.global.map((c) => c.name).sort()).toEqual([...COMMAND_NAMES].sort());
    for (const command of kit.fake.commands.global) expect(command.contexts).toEqual([0, 1]);
  });

  it('a button it does not know (an older version, a finished turn) is acknowledged, never "This interaction failed"', async () => {
    kit = await startKit(new ScriptedCore());
    const f = fixtureInteraction('buttonClickHello');
    for (const customId of ['scout_from_an_older_version', 'scout_plan:run:no-such-turn']) {
      const { token } = kit.fake.interact({
        ...f,
        locale: 'zh-CN',
        data: { component_type: 2, custom_id: customId },
      });
      await kit.fake.waitFor(() => kit!.fake.originalResponse(token), 5000, `an answer to ${customId}`);
    }
    const callbacks = kit.fake.callsTo('POST /interactions/:interaction/:token/callback');
    expect(callbacks.map((c) => [c.status < 300, c.body.type, c.body.data?.flags])).toEqual([
      [true, 4, 64],
      [true, 4, 64],
    ]);
    expect(callbacks.map((c) => c.body.data.content)).toEqual(['此按钮已失效。', '此按钮已失效。']);
  });

  it('defers a slash command ephemerally, then edits in the core reply in the user locale', async () => {
    const core = new ScriptedCore();
    kit = await startKit(core);
    const { token } = kit.fake.interact(
      slashCommand('mode', [{ name: 'mode', type: 3, value: 'agent' }], { locale: 'zh-CN' }),
    );
    const edit = await kit.fake.waitFor(
      () => kit!.fake.callsTo('PATCH /webhooks/:application/:token/messages/@original')[0],
    );
    const defer = kit.fake.callsTo('POST /interactions/:interaction/:token/callback')[0]!;
    expect(defer.body).toEqual({ type: 5, data: { flags: 64 } });
    expect(defer.at).toBeLessThanOrEqual(edit.at);
    expect(edit.body.content).toBe('ran mode agent (zh)');
    expect(edit.allowedMentions).toEqual({ parse: [] });
    expect(kit.fake.originalResponse(token)?.flags).toBe(64);
    expect(core.commands[0]).toMatchObject({
      name: 'mode',
      args: 'agent',
      context: { channelId: `discord:${meta.guildId}:${meta.channelId}`, userId: meta.userId, locale: 'zh' },
    });
  });

  it('a slash command reply too long for one message: the deferred reply, then ephemeral follow-ups, all in Discord Markdown', async () => {
    const core = new ScriptedCore();
    const lines = Array.from(
      { length: 12 },
      (_, i) => `*Part ${i}* for <@${meta.userId}>: ${'y'.repeat(400)}`,
    );
    vi.spyOn(core, 'runCommand').mockResolvedValue({ text: lines.join('\n\n'), changed: false });
    kit = await startKit(core);
    kit.fake.interact(slashCommand('help', []));
    const followUps = () => kit!.fake.callsTo('POST /webhooks/:application/:token');
    await kit.fake.waitFor(
      () => followUps().some((c) => String(c.body.content).includes('Part 11')) || undefined,
      5000,
      'the last part',
    );
    const edit = kit.fake.callsTo('PATCH /webhooks/:application/:token/messages/@original')[0]!;
    const parts = [edit, ...followUps()];
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(String(part.body.content).length).toBeLessThanOrEqual(2000);
      expect(part.allowedMentions).toEqual({ parse: [] });
    }
    for (const followUp of followUps()) expect(followUp.body.flags).toBe(64);
    const all = parts.map((p) => String(p.body.content)).join('\n\n');
    for (let i = 0; i < 12; i++) expect(all).toContain(`**Part ${i}**`);
  });

  it('Stop cancels the running turn of the thread it is pressed in', async () => {
    const core = new ScriptedCore();
    let release!: () => void;
    core.gate = new Promise((resolve) => {
      release = resolve;
    });
    kit = await startKit(core);
    const mention = fixtureMessage('gatewayMention');
    kit.fake.dispatch('MESSAGE_CREATE', mention);
    const steps = await kit.fake.waitFor(() =>
      kit!.fake
        .messagesIn(mention.id)
        .find((m) =>
          m.components[0]?.components.some((c: { custom_id: string }) => c.custom_id === 'scout_stop'),
        ),
    );
    // While the turn works, the typing indicator is refreshed (every 40 ms in this test, 8 s in production).
    await kit.fake.waitFor(
      () => kit!.fake.callsTo('POST /channels/:channel/typing').length >= 3 || undefined,
    );
    const f = fixtureInteraction('buttonClickHello');
    kit.fake.interact({
      ...f,
      channel_id: mention.id,
      channel: { ...f.channel, id: mention.id },
      message: { ...f.message, id: steps.id },
      data: { component_type: 2, custom_id: 'scout_stop' },
    });
    await kit.fake.waitFor(() => core.cancelled.length > 0 || undefined);
    expect(core.cancelled).toEqual([`discord:${meta.guildId}:${mention.id}`]);
    release();
    await answerIn(kit, mention.id, 'Answer to: Hey');
    // The final steps message no longer offers Stop.
    expect(
      steps.components
        .flatMap((r: { components: { custom_id: string }[] }) => r.components)
        .some((c: { custom_id: string }) => c.custom_id === 'scout_stop'),
    ).toBe(false);
  });
});

describe('Discord surface: Message Content intent', () => {
  itWithShared('logs a hint when follow-ups in its thread arrive without content', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const core = new ScriptedCore();
    kit = await startKit(core, { logger });
    const mention = fixtureMessage('gatewayMention', {}, true);
    kit.fake.dispatch('MESSAGE_CREATE', mention);
    await answerIn(kit, meta.threadId, 'Answer to: Hey');
    kit.fake.dispatch('MESSAGE_CREATE', fixtureMessage('gatewayThreadNice', { content: '' }));
    kit.fake.dispatch('MESSAGE_CREATE', fixtureMessage('gatewayThreadNum1', { content: '' }));
    await kit.fake.waitFor(() => lines.some((l) => l.includes('Message Content')) || undefined);
    expect(lines.filter((l) => l.includes('Message Content'))).toHaveLength(1);
    expect(core.received).toHaveLength(1);
  });

  itWithShared(
    'starts without the intent when Discord refuses it (close 4014), warns once, still answers mentions and DMs',
    async () => {
      const lines: string[] = [];
      const logger = createLogger({
        level: 'warn',
        destination: { write: (line: string) => void lines.push(line) },
      });
      const fake = await FakeDiscord.start({ messageContentIntentEnabled: false });
      const core = new ScriptedCore();
      kit = await startKit(core, { fake, logger });
      const close = kit.close;
      kit.close = async () => {
        await close();
        await fake.close();
      };
      // Asked with the intent, refused; asked again without it, accepted.
      expect(fake.identifies.map((i) => (i.intents & INTENT_MESSAGE_CONTENT) !== 0)).toEqual([true, false]);
      const warnings = lines.filter((l) => l.includes('Message Content'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('mentions, DMs and slash commands still work');
      expect(warnings[0]).toContain('Privileged Gateway Intents');

      kit.fake.dispatch('MESSAGE_CREATE', fixtureMessage('gatewayMention', {}, true));
      await answerIn(kit, meta.threadId, 'Answer to: Hey');
      // A follow-up without a mention arrives blank (Discord withholds its content): not a turn.
      kit.fake.dispatch('MESSAGE_CREATE', fixtureMessage('gatewayThreadNice'));
      const dm = dmMessage('Hello in private');
      kit.fake.dispatch('MESSAGE_CREATE', dm);
      await answerIn(kit, dm.channel_id, 'Answer to: Hello in private');
      expect(core.received.map((m) => m.text)).toEqual(['Hey', 'Hello in private']);
      expect(lines.filter((l) => l.includes('Message Content'))).toHaveLength(1);
    },
  );
});
