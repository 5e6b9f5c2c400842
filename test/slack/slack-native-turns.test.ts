/**
 * Whole turns on Slack's native AI streaming path, through the real Bolt app and the strict fake Web
 * API: what the thread shows at the end (every part once, the footer and 👍/👎 once on the last
 * message, task cards kept when the final text is put in place), and what it costs in calls (no
 * message posted only to be deleted, the thread status set once and cleared by the reply), including a
 * rate-limited stop and a stream that expires mid-answer.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: recorded Slack calls are open JSON
import { afterEach, expect, it } from 'vitest';
import { STOP_HINT_TASK_ID } from '../../adapters/slack/render-blocks.js';
import type { FakeMessage } from '../helpers/fake-slack-api.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { describeWithShared } from '../helpers/fixtures.js';
import { wrapCore } from '../helpers/wrap-core.js';
import { longCitedAnswer } from '../render/markdown-samples.js';
import {
  dmFixture,
  type SlackHarness,
  startSlackHarness,
  TEST_EDIT_INTERVAL_MS,
  threadFixture,
} from './slack-harness.js';

const { mention } = dmFixture();
const channel = mention.event.channel as string;
const threadTs = mention.event.ts as string;

/** The Markdown a message shows: its `markdown` blocks once edited, else what was streamed into it. */
function shown(m: FakeMessage): string {
  const markdown = m.blocks.filter((b: any) => b.type === 'markdown').map((b: any) => b.text as string);
  return markdown.length > 0 ? markdown.join('\n') : m.streamedText;
}

/** A long answer with nothing the core rewrites at the end (no citation markers). */
function plainAnswer(paragraphs: number): string {
  return Array.from({ length: paragraphs }, (_, i) =>
    `Paragraph ${i}: ${'plain words '.repeat(10)}`.trim(),
  ).join('\n\n');
}

const has = (m: FakeMessage, text: string) => JSON.stringify(m.blocks).includes(text);
const isFooter = (b: any) => b.type === 'context' && JSON.stringify(b).includes('tok');

describeWithShared('Slack native streaming: whole turns', () => {
  const open: SlackHarness[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });

  async function start(env: Record<string, string> = {}, nativeStreaming = true): Promise<SlackHarness> {
    const s = await startSlackHarness({ env, nativeStreaming });
    open.push(s);
    return s;
  }

  it('an answer over 10k characters: the stream, then posted parts; footer and 👍/👎 once, on the last', async () => {
    const answer = longCitedAnswer(200);
    expect(answer.length).toBeGreaterThan(20_000);
    const s = await start();
    s.h.llm.fallback = () => textReply(answer, { chunkDelayMs: 30 });
    await s.event(mention);
    await s.surface.idle();

    const messages = s.slack.messagesIn(channel, threadTs);
    expect(s.slack.callsTo('chat.startStream')).toHaveLength(1);
    expect(messages[0]!.ts).toBe(s.slack.callsTo('chat.startStream')[0]!.response.ts);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    const withFeedback = messages.filter((m) => has(m, 'scout_feedback_up'));
    expect(withFeedback).toEqual([messages.at(-1)]);
    const footers = messages.flatMap((m) => m.blocks.filter(isFooter));
    expect(footers).toHaveLength(1);
    expect(messages.at(-1)!.blocks.some(isFooter)).toBe(true);
    expect(messages.some((m) => has(m, 'scout_stop'))).toBe(false);
    // Every paragraph shows exactly once, in order.
    const text = messages.map(shown).join('\n\n');
    for (const i of [0, 1, 57, 120, 199]) expect(text.split(`Paragraph ${i}:`)).toHaveLength(2);
    expect(text.indexOf('Paragraph 199:')).toBeGreaterThan(text.indexOf('Paragraph 0:'));
    // While it streamed, Stop was on the last posted part (a message that exists anyway).
    expect(
      s.slack.callsTo('chat.postMessage').some((c) => JSON.stringify(c.args.blocks).includes('scout_stop')),
    ).toBe(true);
    expect(s.slack.callsTo('chat.delete')).toEqual([]);
    expect(s.slack.violations).toEqual([]);
  });

  it('a final text that rewrote what streamed keeps its task cards, and lands right after the stop', async () => {
    // Citations are linked as they stream, so a real answer's final text only grows what streamed
    // (slack-live-citations.test.ts); here the core rewrites its final answer, to put the edit after
    // the stop to work.
    // A long edit interval, so "right after the stop" and "an interval later" cannot be confused on a
    // loaded machine.
    const interval = 2_000;
    const s = await startSlackHarness({
      env: { DEFAULT_MODE: 'agent' },
      nativeStreaming: true,
      editIntervalMs: interval,
      core: (scout) =>
        wrapCore(scout, (sink) => ({
          done: (view) => sink.done({ ...view, answer: view.answer.replace('a bot', 'a research bot') }),
        })),
    });
    open.push(s);
    s.h.llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'scout news' } }]));
    s.h.llm.fallback = () =>
      textReply('Scout is a bot [1]. It answers in threads [2] and cites its sources.');
    await s.event(mention);
    await s.surface.idle();

    const [stop] = s.slack.callsTo('chat.stopStream');
    const ts = stop!.args.ts as string;
    const message = s.slack.messagesIn(channel, threadTs).find((m) => m.ts === ts)!;
    expect(message.streamedText).toContain('Scout is a bot'); // what the stream showed
    const updates = s.slack.callsTo('chat.update').filter((c) => c.args.ts === ts);
    expect(updates).toHaveLength(1);
    // The closing call goes as soon as the stop is done, not an edit interval later.
    expect(updates[0]!.at - stop!.at).toBeLessThan(interval);
    expect(shown(message)).toContain('Scout is a research bot');
    expect(shown(message)).toContain('[[1]](https://example.com/scout-news/1)');
    expect(shown(message)).not.toMatch(/(?<!\[)\[\d+\](?![\](])/);
    // The cards the stream showed for its steps (the search, its results with their sources …) are
    // all kept; the stop hint's card, closed by the stop, is not carried into the edited message.
    const streamed = new Set(
      message.chunks
        .filter((c: any) => c.type === 'task_update' && c.id !== STOP_HINT_TASK_ID)
        .map((c: any) => c.id),
    );
    const cards = message.blocks.filter((b: any) => b.type === 'task_card');
    expect(new Set(cards.map((c: any) => c.task_id))).toEqual(streamed);
    expect(cards.map((c: any) => c.title)).toContainEqual(expect.stringContaining('scout news'));
    expect(JSON.stringify(cards)).toContain('https://example.com/scout-news/1');
    expect(message.blocks.filter((b: any) => JSON.stringify(b).includes('scout_feedback_up'))).toHaveLength(
      1,
    );
    expect(s.slack.messagesIn(channel, threadTs)).toHaveLength(1);
    expect(s.slack.violations).toEqual([]);
  });

  it('no message is posted only to be deleted, and the status is set once (the reply clears it)', async () => {
    for (const mode of ['chat', 'agent']) {
      const s = await start({ DEFAULT_MODE: mode });
      if (mode === 'agent')
        s.h.llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'scout news' } }]));
      s.h.llm.fallback = () => textReply('A short answer [1].', { chunkDelayMs: 20 });
      await s.event(mention);
      await s.surface.idle();
      expect(s.slack.callsTo('chat.postMessage'), mode).toEqual([]);
      expect(s.slack.callsTo('chat.delete'), mode).toEqual([]);
      // Set once before anything showed; the reply cleared it (Slack does), so no second call.
      const status = s.slack.callsTo('assistant.threads.setStatus').map((c) => c.args.status);
      expect(status, mode).toHaveLength(1);
      expect(status[0], mode).not.toBe('');
      expect(s.slack.threadStatus(channel, threadTs), mode).toBe('');
      expect(s.slack.messagesIn(channel, threadTs), mode).toHaveLength(1);
    }
  });

  it('3 × 429 on chat.stopStream: the stop is retried and the answer lands whole', async () => {
    const answer = plainAnswer(40);
    const s = await start();
    // Slack's Retry-After is whole seconds; 0 keeps the test fast while every try is still refused.
    s.slack.rateLimit('chat.stopStream', 3, 0);
    s.h.llm.fallback = () => textReply(answer, { chunkDelayMs: 20 });
    await s.event(mention);
    await s.surface.idle();

    const stops = s.slack.callsTo('chat.stopStream');
    expect(stops.map((c) => c.status)).toEqual([429, 429, 429, 200]);
    const [message] = s.slack.messagesIn(channel, threadTs);
    expect(message!.streaming).toBe(false);
    expect(shown(message!)).toBe(answer);
    expect(has(message!, 'scout_feedback_up')).toBe(true);
    expect(s.slack.violations).toEqual([]);
  });

  it('a stream that expires mid-answer is finished as an ordinary message; the next turn streams again', async () => {
    const answer = plainAnswer(30);
    const s = await start();
    s.h.llm.fallback = () => textReply(answer, { chunkDelayMs: TEST_EDIT_INTERVAL_MS * 2 });
    await s.event(mention);
    await s.slack.waitFor(() => s.slack.callsTo('chat.startStream').length === 1, 5000, 'the stream');
    const ts = s.slack.callsTo('chat.startStream')[0]!.response.ts as string;
    // Slack ends streams after a while: the next append or stop answers message_not_in_streaming_state.
    s.slack.messages.get(`${channel}:${ts}`)!.streaming = false;
    await s.surface.idle();

    const messages = s.slack.messagesIn(channel, threadTs);
    expect(messages).toHaveLength(1);
    expect(shown(messages[0]!)).toBe(answer);
    expect(has(messages[0]!, 'scout_feedback_up')).toBe(true);
    expect(
      s.slack.calls.some((c) => c.response.error === 'message_not_in_streaming_state'),
      'the expiry was hit',
    ).toBe(true);
    expect(s.slack.callsTo('chat.startStream')).toHaveLength(1);

    // One expired stream does not switch streaming off for the workspace.
    s.h.llm.fallback = () => textReply('Second answer.');
    await s.event({ ...mention, event: { ...mention.event, ts: '1767376999.000001' } });
    await s.surface.idle();
    expect(s.slack.callsTo('chat.startStream')).toHaveLength(2);
    expect(s.slack.violations.filter((v) => v.error !== 'message_not_in_streaming_state')).toEqual([]);
  });
});

describeWithShared('Slack: how to stop a streamed answer, and "stop" written in the thread', () => {
  const open: SlackHarness[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });

  const EN_HINT = 'To stop this answer, reply “stop” in this thread';
  const ZH_HINT = '要停止此回答，请在此话题中回复“停止”';
  /** The stop hint's card as the message shows it: the last task_update of its id. */
  const hintCard = (m: FakeMessage) =>
    m.chunks.filter((c: any) => c.type === 'task_update' && c.id === STOP_HINT_TASK_ID).at(-1);

  for (const [locale, hint, ended, stopWord, nothing] of [
    ['en-US', EN_HINT, 'Answer ended', 'stop', 'Nothing is running in this conversation.'],
    ['zh-CN', ZH_HINT, '回答已结束', '停止', '此会话没有正在运行的任务。'],
  ] as const) {
    it(`${locale}: the running stream says how to stop it; the final message does not, and a late "${stopWord}" is told nothing runs`, async () => {
      const fx = threadFixture();
      const user = fx.mention.event.user as string;
      const s = await startSlackHarness({ nativeStreaming: true, fake: { userLocales: { [user]: locale } } });
      open.push(s);
      const answer = plainAnswer(12);
      s.h.llm.fallback = () => textReply(answer, { pieces: 60, chunkDelayMs: 20 });
      await s.event({ ...fx.mention, event: { ...fx.mention.event, type: 'app_mention' } });
      const streamed = () => s.slack.messagesIn(fx.mention.event.channel, fx.mention.event.ts)[0];
      // While it runs, what the user sees in the stream tells how to stop it, in their language.
      await s.slack.waitFor(() => streamed()?.streaming === true, 5000, 'the stream');
      expect(hintCard(streamed()!)).toMatchObject({ title: hint, status: 'in_progress' });
      await s.surface.idle();

      // The stop closed the card: the finished answer no longer says how to stop it, and no edit
      // after the stop was needed for that.
      const [message] = s.slack.messagesIn(fx.mention.event.channel, fx.mention.event.ts);
      expect(message!.streaming).toBe(false);
      expect(shown(message!)).toBe(answer);
      expect(hintCard(message!)).toMatchObject({ title: ended, status: 'complete' });
      expect(JSON.stringify(message!.blocks)).not.toContain(hint);
      expect(s.slack.callsTo('chat.update')).toEqual([]);
      expect(has(message!, 'scout_feedback_up')).toBe(true);
      expect(s.slack.violations).toEqual([]);

      // The answer is over: "stop" written a moment late is answered privately, never asked.
      await s.event({ ...fx.followUp, event: { ...fx.followUp.event, text: stopWord } });
      await s.surface.idle();
      expect(s.h.llm.requests).toHaveLength(1);
      const notes = s.slack.callsTo('chat.postEphemeral');
      expect(notes.map((c) => c.args.text)).toEqual([nothing]);
      expect(notes[0]!.args).toMatchObject({ user: fx.followUp.event.user });
      expect(s.slack.messagesIn(fx.mention.event.channel, fx.mention.event.ts)).toHaveLength(1);
    });
  }

  it('"stop" written while the answer streams stops it, and is not asked as a question', async () => {
    const fx = threadFixture();
    const s = await startSlackHarness({ nativeStreaming: true });
    open.push(s);
    s.h.llm.fallback = () => textReply(plainAnswer(40), { pieces: 200, chunkDelayMs: 20 });
    await s.event({ ...fx.mention, event: { ...fx.mention.event, type: 'app_mention' } });
    await s.slack.waitFor(() => s.slack.callsTo('chat.startStream').length === 1, 5000, 'the stream');
    await s.event({ ...fx.followUp, event: { ...fx.followUp.event, text: 'stop' } });
    await s.surface.idle();

    expect(s.h.llm.requests).toHaveLength(1);
    expect(s.slack.callsTo('chat.postEphemeral')).toEqual([]);
    const [message] = s.slack.messagesIn(fx.mention.event.channel, fx.mention.event.ts);
    expect(message!.streaming).toBe(false);
    expect(shown(message!)).not.toContain('Paragraph 39');
    expect(shown(message!)).toMatch(/stop/i);
    expect(shown(message!)).not.toContain(EN_HINT);
    expect(hintCard(message!)).toMatchObject({ title: 'Answer ended', status: 'complete' });
  });
});
