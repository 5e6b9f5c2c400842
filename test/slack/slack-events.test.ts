import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import { textReply } from '../helpers/fake-openai-server.js';
import {
  dmFixture,
  type SlackHarness,
  startSlackHarness,
  threadFixture,
  visibleText,
} from './slack-harness.js';

describeWithShared('Slack events end to end (Bolt HTTP mode + fake Web API)', () => {
  let s: SlackHarness;
  beforeEach(async () => {
    s = await startSlackHarness();
  });
  afterEach(async () => {
    await s.close();
  });

  it('answers a mention once in its thread, even delivered four times and as a message event', async () => {
    const { mention } = dmFixture();
    s.h.llm.enqueue(textReply('Hello from Scout'));
    const eventId = 'Ev0MENTION1';
    for (let retry = 0; retry < 4; retry++) {
      const headers: Record<string, string> = retry
        ? { 'X-Slack-Retry-Num': String(retry), 'X-Slack-Retry-Reason': 'http_timeout' }
        : {};
      const res = await s.event({ ...mention, event_id: eventId }, headers);
      expect(res.status).toBe(200);
    }
    // The same user message as a `message` event (Slack's double delivery).
    await s.event({ ...mention, event: { ...mention.event, type: 'message', channel_type: 'channel' } });
    await s.surface.idle();
    const posts = s.slack.messagesIn(mention.event.channel, mention.event.ts);
    expect(posts).toHaveLength(1);
    expect(visibleText(posts[0]!.blocks)).toContain('Hello from Scout');
    expect(s.h.llm.requests).toHaveLength(1);
    expect(s.slack.violations).toEqual([]);
  });

  it('rejects a bad signature with 401 and does no work', async () => {
    const { mention } = dmFixture();
    const res = await fetch(s.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'X-Slack-Signature': 'v0=deadbeef',
        'X-Slack-Request-Timestamp': String(Math.floor(Date.now() / 1000)),
      },
      body: JSON.stringify({ ...mention, event_id: 'EvBAD' }),
    });
    expect(res.status).toBe(401);
    await s.surface.idle();
    expect(s.h.llm.requests).toHaveLength(0);
    expect(s.slack.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('answers a thread follow-up without a mention once Scout answered there', async () => {
    const fx = threadFixture();
    const mention = { ...fx.mention, event: { ...fx.mention.event, type: 'app_mention' } };
    s.h.llm.enqueue(textReply('First answer'), textReply('Second answer'));
    await s.event(mention);
    await s.surface.idle();
    await s.event(fx.followUp);
    await s.surface.idle();
    const thread = s.slack.messagesIn(fx.mention.event.channel, fx.mention.event.ts);
    expect(thread.map((m) => visibleText(m.blocks))).toEqual([
      expect.stringContaining('First answer'),
      expect.stringContaining('Second answer'),
    ]);
    // The follow-up carried the first exchange as history.
    const second = JSON.stringify(s.h.llm.requests[1]!.body);
    expect(second).toContain('First answer');
  });

  it('ignores a thread reply where Scout never answered, its own messages and other bots', async () => {
    const fx = threadFixture();
    await s.event(fx.followUp);
    await s.event({
      ...fx.followUp,
      event: { ...fx.followUp.event, ts: '1767224999.000001', user: fx.botUserId },
    });
    await s.event({
      ...fx.followUp,
      event: { ...fx.followUp.event, ts: '1767224999.000002', bot_id: 'B0OTHER', subtype: 'bot_message' },
    });
    const { dmMessage } = dmFixture();
    await s.event({ ...dmMessage, event: { ...dmMessage.event, user: fx.botUserId } });
    await s.event({ ...dmMessage, event: { ...dmMessage.event, subtype: 'message_changed' } });
    await s.surface.idle();
    expect(s.h.llm.requests).toHaveLength(0);
    expect(s.slack.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('answers any DM message in its thread', async () => {
    const { dmMessage } = dmFixture();
    s.h.llm.enqueue(textReply('Hi in DM'));
    await s.event(dmMessage);
    await s.surface.idle();
    const posts = s.slack.messagesIn(dmMessage.event.channel, dmMessage.event.ts);
    expect(posts).toHaveLength(1);
    expect(visibleText(posts[0]!.blocks)).toContain('Hi in DM');
  });
});
