/**
 * The benchmark's bookkeeping on hand-made records: overlapping waits count once, and the edit-rate
 * check flags every pair of writes on one message closer than a second — except the first answer
 * text, which SPEC §8 sends at once, and a rewritten final right after a stream's stop.
 */
import { describe, expect, it } from 'vitest';
import { unionMs } from '../../bench/client-timing.js';
import type { LlmRecord } from '../../bench/fakes/fake-llm.js';
import type { SlackCall } from '../../bench/fakes/fakes.js';
import {
  editStats,
  lastTokenToFinal,
  lastTokenToStop,
  median,
  medianInterval,
  summarize,
} from '../../bench/metrics.js';
import { lateAcks } from '../../bench/scenarios/mass-agent-turns.js';

const call = (method: string, at: number, extra: Partial<SlackCall> = {}): SlackCall => ({
  method,
  at,
  message: 'C1:1.1',
  thread: 'C1:1.0',
  creates: method === 'chat.startStream' || method === 'chat.postMessage',
  hasAnswer: false,
  hasEnd: false,
  ok: true,
  ...extra,
});

describe('bench metrics', () => {
  it('unionMs counts overlapping spans once', () => {
    expect(unionMs([])).toBe(0);
    expect(
      unionMs([
        [0, 10],
        [5, 15],
        [20, 25],
        [21, 22],
      ]),
    ).toBe(20);
  });

  it('exempts only the first answer text from the one-write-per-second check', () => {
    const paced = editStats([
      call('chat.startStream', 0),
      call('chat.appendStream', 300, { hasAnswer: true }), // first text: at once
      call('chat.appendStream', 1310, { hasAnswer: true }),
      call('chat.stopStream', 2320, { hasAnswer: true, hasEnd: true }),
    ]);
    expect(paced.maxEditsPerMessagePerSecond).toBe(1);
    expect(paced.maxEditsPerMessagePerSecondStrict).toBe(2);
    expect(paced.firstTextSooner).toBe(1);
    expect(paced.fastPairs).toEqual({});

    const tooSoon = editStats([
      call('chat.startStream', 0),
      call('chat.appendStream', 300, { hasAnswer: true }),
      call('chat.appendStream', 1310, { hasAnswer: true }),
      call('chat.appendStream', 1500, { hasAnswer: true }), // 190 ms after an append, not the final
      call('chat.stopStream', 2600, { hasAnswer: true, hasEnd: true }),
    ]);
    expect(tooSoon.maxEditsPerMessagePerSecond).toBe(2);
    expect(tooSoon.fastPairs).toEqual({ 'chat.appendStream → chat.appendStream': 1 });
    expect(tooSoon.minEditGapMs).toBe(190);
    expect(tooSoon.finalSooner).toBe(0);
  });

  it('exempts the final state, written as soon as the last token arrives, and counts it apart', () => {
    const stats = editStats([
      call('chat.startStream', 0),
      call('chat.appendStream', 300, { hasAnswer: true }),
      call('chat.appendStream', 1310, { hasAnswer: true }),
      call('chat.stopStream', 1500, { hasAnswer: true, hasEnd: true }), // the close 190 ms after an append
    ]);
    expect(stats.maxEditsPerMessagePerSecond).toBe(1);
    expect(stats.finalSooner).toBe(1);
    expect(stats.fastPairs).toEqual({});
    // With a closing edit after the stop, both are the final state.
    const closed = editStats([
      call('chat.startStream', 0),
      call('chat.appendStream', 1000, { hasAnswer: true }),
      call('chat.stopStream', 1200, { hasAnswer: true }),
      call('chat.update', 1230, { hasAnswer: true, hasEnd: true }),
    ]);
    expect(closed.finalSooner).toBe(1);
    expect(closed.fastPairs).toEqual({});
  });

  it('a message created with its answer text gets no exemption', () => {
    const stats = editStats([
      call('chat.postMessage', 0, { hasAnswer: true }),
      call('chat.update', 400, { hasAnswer: true }),
      call('chat.update', 1500, { hasAnswer: true, hasEnd: true }),
    ]);
    expect(stats.firstTextSooner).toBe(0);
    expect(stats.maxEditsPerMessagePerSecond).toBe(2);
    expect(stats.fastPairs).toEqual({ 'chat.postMessage → chat.update': 1 });
  });

  it("a rewritten final right after a stream's stop is counted apart; any other quick update is not", () => {
    const stats = editStats([
      call('chat.startStream', 0, { hasAnswer: true }),
      call('chat.stopStream', 1000),
      call('chat.update', 1030),
      call('chat.update', 1500),
      call('chat.update', 2600),
    ]);
    expect(stats.closingSooner).toBe(1);
    expect(stats.fastPairs).toEqual({ 'chat.stopStream → chat.update': 1 });
    expect(stats.maxEditsPerMessagePerSecond).toBe(2);
  });

  it("measures last token → final per thread, never from another thread's stream", () => {
    // Two turns at once: A's stream ends first (1 s) but its final write comes at 3.3 s; B's stream
    // ends at 3.15 s, just before A's stream is stopped. Read as "the latest stream end before the
    // thread's last word reached Slack", A would show 150 ms. The answer stream is the model request
    // that carried the thread's own tag.
    const answer = (turn: string, end: number): LlmRecord => ({ turn, kind: 'answer', start: 0, end });
    const writes = (thread: string, stop: number, final: number): SlackCall[] => [
      call('chat.startStream', 0, { thread, message: `${thread}.1` }),
      call('chat.stopStream', stop, { thread, message: `${thread}.1`, hasAnswer: true, hasEnd: true }),
      call('chat.update', final, { thread, message: `${thread}.1`, hasAnswer: true, hasEnd: true }),
    ];
    const snapshot = {
      llm: [
        { turn: 'bench-ta-0', kind: 'tool', start: 0, end: 4_000 } satisfies LlmRecord,
        answer('bench-ta-0', 1_000),
        answer('bench-tb-1', 3_150),
      ],
      search: [],
      slack: [
        ...writes('C1:1.0', 3_200, 3_300),
        ...writes('C1:2.0', 3_350, 3_400),
        call('chat.postMessage', 9_000, { thread: 'C9:9.0', message: 'C9:9.1' }),
      ],
      violations: [],
    };
    const turns = [
      { tag: 'bench-ta-0', thread: 'C1:1.0' },
      { tag: 'bench-tb-1', thread: 'C1:2.0' },
      // No answer stream recorded for this one: left out rather than borrowing another's.
      { tag: 'bench-tc-2', thread: 'C1:3.0' },
    ];
    expect(lastTokenToFinal(snapshot, turns)).toEqual([2_300, 250]);
    // The final's first part: up to each thread's own stream stop (the closing edit comes after).
    expect(lastTokenToStop(snapshot, turns)).toEqual([2_200, 200]);
  });

  it("counts acknowledgements past Slack's 3 s as failures (scenario 12)", () => {
    expect(lateAcks([20, 2_999, 3_000, 3_001, 3_600])).toBe(2);
  });

  it('takes the median of an even count as the mean of its middle two', () => {
    expect(median([0.8, 8.2, 3.2, 4.2, 1.8])).toBe(3.2);
    expect(median([0.8, 8.2, 3.2, 4.2])).toBeCloseTo(3.7, 12);
    expect(median([Number.NaN])).toBeNaN();
    // Every summary's p50 is that median too (six rounds: not the lower middle value, 3.2).
    expect(summarize([0.8, 8.2, 3.2, 4.2, 1.8, 5.0]).p50).toBeCloseTo(3.7, 12);
    expect(summarize([0.8, 8.2, 3.2]).p50).toBe(3.2);
  });

  it('gives the order-statistic interval of a median, or none when there are too few rounds', () => {
    // Five values cannot reach 95 %: even [min, max] covers the median with 1 − 2/32 = 93.75 %.
    expect(medianInterval([1, 2, 3, 4, 5])).toBeUndefined();
    // Six: [min, max], 1 − 2/64.
    expect(medianInterval([6, 1, 5, 2, 4, 3])).toEqual({ low: 1, high: 6, coverage: 1 - 2 / 64 });
    // Ten: [x(2), x(9)], 1 − 2·(1 + 10)/1024; [x(3), x(8)] would cover only 89 %.
    const ten = [9.5, -1, 3, 7, 2, 8, 4, 6, 5, 100];
    expect(medianInterval(ten)).toEqual({ low: 2, high: 9.5, coverage: 1 - (2 * 11) / 1024 });
    // A lower confidence narrows it; values that are not numbers are left out.
    expect(medianInterval([...ten, Number.NaN], 0.85)).toEqual({
      low: 3,
      high: 8,
      coverage: 1 - (2 * 56) / 1024,
    });
  });
});
