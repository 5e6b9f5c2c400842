/**
 * The benchmark's bookkeeping on hand-made records: overlapping waits count once, and the edit-rate
 * check flags every pair of writes on one message closer than a second — except the first answer
 * text, which SPEC §8 sends at once, and a rewritten final right after a stream's stop.
 */
import { describe, expect, it } from 'vitest';
import { unionMs } from '../../bench/client-timing.js';
import type { SlackCall } from '../../bench/fakes/fakes.js';
import { editStats } from '../../bench/metrics.js';

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
      call('chat.stopStream', 1500, { hasAnswer: true, hasEnd: true }), // the close 190 ms after an append
    ]);
    expect(tooSoon.maxEditsPerMessagePerSecond).toBe(2);
    expect(tooSoon.fastPairs).toEqual({ 'chat.appendStream → chat.stopStream': 1 });
    expect(tooSoon.minEditGapMs).toBe(190);
  });

  it('a message created with its answer text gets no exemption', () => {
    const stats = editStats([
      call('chat.postMessage', 0, { hasAnswer: true }),
      call('chat.update', 400, { hasAnswer: true }),
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
    ]);
    expect(stats.closingSooner).toBe(1);
    expect(stats.fastPairs).toEqual({ 'chat.stopStream → chat.update': 1 });
    expect(stats.maxEditsPerMessagePerSecond).toBe(2);
  });
});
