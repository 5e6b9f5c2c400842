/**
 * Native streaming pace, as the fake Slack API sees it: the first answer text is appended at once
 * even right after a task-card append (SPEC §8), every other intermediate call on the streamed
 * message comes at least one edit interval after the previous one, and the final state —
 * `chat.stopStream` with the last words and the stop hint's card closed, the stream's last call (no
 * `chat.update` after it) — goes as soon as the answer ended, not an interval after the last call
 * (issue 30).
 */
// biome-ignore-all lint/suspicious/noExplicitAny: recorded Slack calls are open JSON
import { afterEach, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import type { RecordedCall } from '../helpers/fake-slack-api.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { dmFixture, type SlackHarness, startSlackHarness } from './slack-harness.js';

/** Long enough that "at once" and "after the interval" cannot be confused on a loaded machine. */
const INTERVAL_MS = 2_000;
/** Timers may fire a millisecond early relative to Date.now(). */
const TIMER_SLACK_MS = 5;

const { mention } = dmFixture();
const channel = mention.event.channel as string;

/** Every call that created or changed the streamed message, in order. */
function streamCalls(s: SlackHarness): RecordedCall[] {
  const start = s.slack.callsTo('chat.startStream')[0]!;
  const ts = start.response.ts as string;
  return s.slack.calls.filter(
    (c) => c === start || (c.args.channel === channel && c.args.ts === ts && c.method !== 'chat.delete'),
  );
}

/**
 * A text answer that notes when the model wrote its first and its last words (events: on a busy
 * machine the stream stretches, so the calls are timed from these, not from the calls before them).
 */
function timedReply(text: string, chunkDelayMs?: number) {
  const script = textReply(text, chunkDelayMs === undefined ? {} : { chunkDelayMs });
  // Chunk 0 is the role; then the words; then the finish and the usage.
  const lastWords = script.chunks.length - 3;
  const written = { first: 0, last: 0 };
  return {
    written,
    script: {
      ...script,
      onWrite: (index: number) => {
        if (index === 1) written.first = Date.now();
        if (index === lastWords) written.last = Date.now();
      },
    },
  };
}

const hasText = (c: RecordedCall, text: string) =>
  (c.args.chunks ?? []).some((k: any) => k.type === 'markdown_text' && String(k.text).includes(text));

describeWithShared('Slack native streaming pace', () => {
  let s: SlackHarness;
  afterEach(async () => {
    await s.close();
  });

  it('sends the first answer text at once after a task-card append; the stop carries the rest at once', async () => {
    s = await startSlackHarness({
      env: { DEFAULT_MODE: 'agent' },
      nativeStreaming: true,
      editIntervalMs: INTERVAL_MS,
    });
    s.h.llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'pace' } }]));
    // The answer streams for ~100 ms: shorter than the interval, so its end goes out with the stop.
    const answer = timedReply('Firstword then many more words until lastword', 10);
    s.h.llm.fallback = () => answer.script;
    await s.event(mention);
    await s.surface.idle();

    const calls = streamCalls(s);
    expect(calls[0]!.method).toBe('chat.startStream');
    // The stop is the last call: the stop hint's card is closed in it, no edit follows.
    expect(calls.at(-1)!.method).toBe('chat.stopStream');
    const firstText = calls.findIndex((c) => hasText(c, 'Firstword'));
    expect(firstText).toBeGreaterThan(0);
    // Not held back by the interval the task-card calls started: sent once the model wrote them
    // (held back, it would come an interval after the task-card call, ~1.9 s after the words here).
    expect(calls[firstText]!.at).toBeGreaterThanOrEqual(answer.written.first);
    expect(calls[firstText]!.at - answer.written.first).toBeLessThan(INTERVAL_MS / 2);
    // The stop follows the answer's last words, not an interval after the call before it.
    expect(calls.at(-1)!.at).toBeGreaterThanOrEqual(answer.written.last);
    expect(calls.at(-1)!.at - answer.written.last).toBeLessThan(INTERVAL_MS / 2);
    // Every other pair of intermediate calls on the message is at least one interval apart.
    for (let i = 1; i < calls.length - 1; i++) {
      if (i === firstText) continue;
      expect(
        calls[i]!.at - calls[i - 1]!.at,
        `${calls[i - 1]!.method} → ${calls[i]!.method}`,
      ).toBeGreaterThanOrEqual(INTERVAL_MS - TIMER_SLACK_MS);
    }
    // The last words are not appended separately right before the stop: they are in the stop.
    expect(hasText(calls.at(-1)!, 'lastword')).toBe(true);
    const message = s.slack.messagesIn(channel).find((m) => m.ts === calls[0]!.response.ts)!;
    expect(message.streamedText).toContain('Firstword then many more words until lastword');
    expect(message.streaming).toBe(false);
    expect(JSON.stringify(message.blocks)).toContain('scout_feedback_up');
    expect(s.slack.violations).toEqual([]);
  });

  it('a turn that ends right after its task cards stops at once, not an interval after the last call', async () => {
    s = await startSlackHarness({
      env: { DEFAULT_MODE: 'agent' },
      nativeStreaming: true,
      editIntervalMs: INTERVAL_MS,
    });
    s.h.llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'scout news' } }]));
    const answer = timedReply('Scout is a bot [1].');
    s.h.llm.fallback = () => answer.script;
    await s.event(mention);
    await s.surface.idle();

    const calls = streamCalls(s);
    // The answer's text came all at once at its end: the stop carries it, linked, and is the last call.
    expect(calls.at(-1)!.method).toBe('chat.stopStream');
    // The first answer text goes out at once (SPEC §8), the final too; intermediate calls wait the
    // interval.
    const firstText = calls.findIndex((c) => hasText(c, 'Scout'));
    // Timed from the answer's last words (an event), not from the call before: on a busy machine
    // the model's answer itself can come later than half an interval after the task cards.
    expect(calls.at(-1)!.at).toBeGreaterThanOrEqual(answer.written.last);
    expect(calls.at(-1)!.at - answer.written.last).toBeLessThan(INTERVAL_MS / 2);
    for (let i = 1; i < calls.length - 1; i++) {
      if (i === firstText) continue;
      expect(calls[i]!.at - calls[i - 1]!.at).toBeGreaterThanOrEqual(INTERVAL_MS - TIMER_SLACK_MS);
    }
    const streamed = s.slack.messagesIn(channel).find((m) => m.ts === calls[0]!.response.ts)!;
    expect(streamed.streamedText).toContain('Scout is a bot');
    expect(s.slack.violations).toEqual([]);
  });
});
