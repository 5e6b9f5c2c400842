/**
 * `/instructions` on Slack, through the real Bolt app against the fake Web API: the slash command
 * sets the channel's instructions (replying ephemerally, mentions defused), the next mention's model
 * request carries them, `@Scout instructions` in a thread shows them, and ADMIN_USERS gates changes.
 */
import { afterEach, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import { textReply } from '../helpers/fake-openai-server.js';
import {
  type SlackHarness,
  slashFixture,
  startSlackHarness,
  threadFixture,
  visibleText,
  homeActionPayload,
} from './slack-harness.js';

/** Every ping Slack (or a Discord-minded paste) could carry. */
const PINGS = [
  '@everyone',
  '@here',
  '@channel',
  '<!channel>',
  '<!here>',
  '<!subteam^S0123ABC>',
  '<@U123ABC>',
];

describeWithShared('Slack: /instructions', () => {
  let s: SlackHarness;
  afterEach(async () => {
    await s.close();
  });

  /** Runs a slash command in the fixture thread's channel and returns its ephemeral reply. */
  async function slash(command: string, text: string, userId?: string): Promise<string> {
    const fx = threadFixture();
    const before = s.slack.callsTo('chat.postEphemeral').length;
    const { slashCommand } = slashFixture();
    await s.command({
      ...slashCommand,
      team_id: fx.mention.team_id,
      channel_id: fx.mention.event.channel,
      ...(userId ? { user_id: userId } : {}),
      command,
      text,
    });
    await s.slack.waitFor(
      () => s.slack.callsTo('chat.postEphemeral').length > before,
      5000,
      'ephemeral reply',
    );
    return String(s.slack.callsTo('chat.postEphemeral')[before]!.args.text);
  }

  it('the slash command sets them; the next mention’s system prompt ends with them; mentions never ping', async () => {
    s = await startSlackHarness();
    const fx = threadFixture();
    const channelKey = `slack:${fx.mention.team_id}:${fx.mention.event.channel}`;
    const saved = await slash('/instructions', `Answer in French. Escalate to ${PINGS.join(' ')}.`);
    expect(saved).toContain('Instructions saved for this channel');
    expect((await s.h.scout.getSettings(channelKey)).instructions).toContain('Answer in French.');

    const shown = await slash('/instructions', '');
    expect(shown).toContain('> Answer in French.');
    const config = await slash('/config', '');
    expect(config).toContain('Instructions: set here');
    for (const text of [shown, config]) for (const ping of PINGS) expect(text).not.toContain(ping);

    s.h.llm.enqueue(textReply('Bonjour !'));
    await s.event({ ...fx.mention, event: { ...fx.mention.event, type: 'app_mention' } });
    await s.surface.idle();
    const body = s.h.llm.requests[0]?.body as { messages: Array<{ role: string; content: string }> };
    const system = body.messages[0]!;
    expect(system.role).toBe('system');
    expect(system.content).toMatch(/<operator_instructions>\nAnswer in French\. Escalate to @everyone/);
    // The model sees the text as typed (escaped `<`), never as a live Slack token in a reply.
    expect(system.content).toContain('&lt;!channel>');
  });

  it('`@Scout instructions` in a thread shows them as a private reply, without a model call', async () => {
    s = await startSlackHarness();
    await slash('/instructions', 'Prefer the Acme handbook.');
    const fx = threadFixture();
    await s.event({
      ...fx.mention,
      event: {
        ...fx.mention.event,
        type: 'app_mention',
        text: `<@${fx.botUserId}> instructions`,
        thread_ts: '1767224800.000001',
      },
    });
    await s.surface.idle();
    const replies = s.slack.callsTo('chat.postEphemeral');
    expect(String(replies.at(-1)!.args.text)).toContain('> Prefer the Acme handbook.');
    expect(replies.at(-1)!.args.thread_ts).toBe('1767224800.000001');
    expect(s.h.llm.requests).toHaveLength(0);
  });

  it('with ADMIN_USERS set, a non-admin’s /instructions is refused and nothing changes', async () => {
    s = await startSlackHarness({ env: { ADMIN_USERS: 'U0ADMIN0001' } });
    const fx = threadFixture();
    const channelKey = `slack:${fx.mention.team_id}:${fx.mention.event.channel}`;
    expect(await slash('/instructions', 'Answer like a pirate.')).toContain('Only Scout administrators');
    expect((await s.h.scout.getSettings(channelKey)).instructions).toBeUndefined();
    expect(await slash('/instructions', 'Answer like a pirate.', 'U0ADMIN0001')).toContain('saved');
    expect(await slash('/instructions', 'clear')).toContain('Only Scout administrators');
    expect((await s.h.scout.getSettings(channelKey)).instructions).toBe('Answer like a pirate.');
  });

  it('the App Home panel shows the picked channel’s instructions, read-only and inert', async () => {
    s = await startSlackHarness();
    const team = 'T00FAKE00AA';
    const user = 'U00FAKEUSER1';
    s.slack.channels.set('C0INSTRUCT', { name: 'support', members: new Set([user]) });
    await s.h.scout.runCommand('instructions', 'Our product is Acme. Ping <!channel> & @everyone.', {
      channelId: `slack:${team}:C0INSTRUCT`,
      userId: user,
    });
    await s.event({
      team_id: team,
      type: 'event_callback',
      event: { type: 'app_home_opened', user, channel: 'D1', tab: 'home', event_ts: '1.1' },
    });
    await s.slack.waitFor(() => s.slack.callsTo('views.publish').length === 1, 3000, 'home view');
    await s.action(
      homeActionPayload(
        'scout_home_channel',
        { type: 'conversations_select', selected_conversation: 'C0INSTRUCT' },
        { team, user },
      ),
    );
    await s.slack.waitFor(() => s.slack.callsTo('views.publish').length === 2, 3000, 'settings view');
    const view = s.slack.callsTo('views.publish')[1]!.args.view;
    const text = visibleText(view.blocks);
    expect(text).toContain('📝 Instructions');
    expect(text).toContain('Our product is Acme.');
    const raw = JSON.stringify(view.blocks);
    expect(raw).not.toContain('<!channel>');
    expect(raw).toContain('&amp;');
    expect(raw).not.toContain('@everyone');
    expect(s.slack.violations).toEqual([]);
  });
});
