/**
 * What a streamed answer costs in Slack calls, and how soon its final state lands (issue 30), through
 * the real Bolt app and the strict fake Web API at Slack's own edit interval: appends paced by the
 * text as well as the clock (a 300-token answer at 50 tokens/s makes three, not six), the thread
 * status set once before anything shows and cleared by the reply itself, and the stop sent as soon
 * as the answer ended — even right after an append.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: recorded Slack calls are open JSON
import { afterEach, expect, it } from 'vitest';
import type { RecordedCall } from '../helpers/fake-slack-api.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { describeWithShared } from '../helpers/fixtures.js';
import { STREAM_APPEND_MIN_CHARS } from '../../src/render/answer-stream.js';
import { dmFixture, type SlackHarness, startSlackHarness } from './slack-harness.js';

const { mention } = dmFixture();
const channel = mention.event.channel as string;
const threadTs = mention.event.ts as string;

/** Tokens like a model's: a word with its space (~7 characters), a paragraph every 40 words. */
function tokens(count: number): string[] {
  const words = ['scout', 'search', 'answer', 'stream', 'model', 'result', 'source', 'latency', 'thread'];
  return Array.from({ length: count }, (_, i) => {
    const word = words[i % words.length]!;
    if (i === 0) return 'Firstword';
    if (i === count - 1) return ' lastword.';
    return i % 40 === 0 ? `.\n\n${word}` : ` ${word}`;
  });
}

const textOf = (c: RecordedCall) =>
  (c.args.chunks ?? [])
    .filter((k: any) => k.type === 'markdown_text')
    .map((k: any) => String(k.text))
    .join('');

describeWithShared('Slack native stream: calls and the final (issue 30)', () => {
  let s: SlackHarness;
  afterEach(async () => {
    await s.close();
  });

  it('a 300-token answer at 50 tokens/s: 3 appends of 256+ characters, one status call, then nothing but the stop', async () => {
    // Slack's own interval: the pacing under test is what production does.
    s = await startSlackHarness({ nativeStreaming: true, editIntervalMs: 1_000 });
    const answer = tokens(300);
    s.h.llm.fallback = () => textReply(answer.join(''), { pieces: answer.length, chunkDelayMs: 20 });
    await s.event(mention);
    await s.surface.idle();

    const appends = s.slack.callsTo('chat.appendStream');
    // By the clock alone (one append a second for 6 s) this was 5–6.
    expect(appends.length).toBeLessThanOrEqual(3);
    for (const append of appends)
      expect(textOf(append).length).toBeGreaterThanOrEqual(STREAM_APPEND_MIN_CHARS);
    expect(s.slack.callsTo('chat.startStream')).toHaveLength(1);
    expect(s.slack.callsTo('chat.stopStream')).toHaveLength(1);
    // The status shows before anything else does, and is never sent once the stream runs: the reply
    // cleared it (no clearing call), and the thread shows none at the end.
    const status = s.slack.callsTo('assistant.threads.setStatus');
    expect(status).toHaveLength(1);
    expect(status[0]!.args.status).not.toBe('');
    const started = s.slack.callsTo('chat.startStream')[0]!;
    expect(s.slack.calls.indexOf(status[0]!)).toBeLessThan(s.slack.calls.indexOf(started));
    expect(s.slack.threadStatus(channel, threadTs)).toBe('');
    const message = s.slack.messagesIn(channel, threadTs)[0]!;
    expect(message.streamedText).toContain(answer.join('').trim());
    expect(s.slack.violations).toEqual([]);
  });

  it('the stop goes as soon as the answer ended, even right after an append', async () => {
    // A long interval, so "at once" and "an interval later" cannot be confused on a loaded machine.
    const interval = 2_000;
    s = await startSlackHarness({ nativeStreaming: true, editIntervalMs: interval });
    // 40 pieces of ~50 characters: the model sends the first 20 at once, holds the rest until the
    // append the interval makes due has reached Slack, then sends them and ends: the answer ends
    // right after an append (events, not delays, so a slow machine cannot reorder them).
    const pieces = Array.from({ length: 40 }, (_, i) =>
      `${i === 0 ? 'Firstword' : ''} words ${i} `.repeat(4),
    );
    let ended = 0;
    let appended: () => void = () => undefined;
    const firstAppend = new Promise<void>((resolve) => {
      appended = resolve;
    });
    s.h.llm.fallback = () => ({
      ...textReply(pieces.join(''), { pieces: pieces.length }),
      // Chunk 0 is the role; pieces are chunks 1–40.
      holdAt: { index: 21, until: firstAppend },
      onEnd: () => {
        ended = Date.now();
      },
    });
    const watch = setInterval(() => {
      if (s.slack.callsTo('chat.appendStream').length > 0) appended();
    }, 5);
    try {
      await s.event(mention);
      await s.surface.idle();
    } finally {
      clearInterval(watch);
    }

    const [start] = s.slack.callsTo('chat.startStream');
    const appends = s.slack.callsTo('chat.appendStream');
    const [stop] = s.slack.callsTo('chat.stopStream');
    expect(appends).toHaveLength(1);
    // The append waited for the interval (a timer: never early).
    expect(appends[0]!.at - start!.at).toBeGreaterThanOrEqual(interval - 5);
    expect(ended).toBeGreaterThanOrEqual(appends[0]!.at);
    // Before: the stop waited a whole interval after that append. Now it goes when the answer has
    // ended, before the next interval could have let another call go.
    expect(stop!.at).toBeGreaterThanOrEqual(ended);
    expect(stop!.at - appends[0]!.at).toBeLessThan(interval);
    const message = s.slack.messagesIn(channel, threadTs)[0]!;
    expect(message.streamedText).toContain(pieces.join('').trim());
    expect(message.streaming).toBe(false);
    expect(s.slack.violations).toEqual([]);
  });
});
