/**
 * The idle heap collection (src/ops/idle-memory.ts), driven as main.ts drives it: the surfaces start,
 * turns start and end through the observer. Time is faked; `gc` is a recorder.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IDLE_COLLECT_AFTER_MS, STARTED_COLLECT_AFTER_MS, idleMemory } from '../../src/ops/idle-memory.js';
import { silentLogger } from '../../src/logger.js';

const turn = { mode: 'chat' as const, conversationId: 'c1' };
const ended = { mode: 'chat' as const, outcome: 'ok' as const, ms: 5 };

describe('idle heap collection', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('collects once after start-up, then once per idle spell, never while a turn runs', () => {
    const gc = vi.fn();
    const idle = idleMemory(silentLogger, { gc })!;
    idle.started();
    vi.advanceTimersByTime(STARTED_COLLECT_AFTER_MS);
    expect(gc).toHaveBeenCalledTimes(1);
    // The last-resort flavour: the collection V8 makes under memory pressure, which shrinks the heap.
    expect(gc).toHaveBeenCalledWith({ type: 'major', execution: 'sync', flavor: 'last-resort' });

    // Two overlapping turns: nothing while either runs, however long they take.
    idle.observer.onTurnStart!(turn);
    idle.observer.onTurnStart!(turn);
    idle.observer.onTurnEnd!(ended);
    vi.advanceTimersByTime(IDLE_COLLECT_AFTER_MS * 3);
    expect(gc).toHaveBeenCalledTimes(1);
    idle.observer.onTurnEnd!(ended);
    vi.advanceTimersByTime(IDLE_COLLECT_AFTER_MS - 1);
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(gc).toHaveBeenCalledTimes(2);

    // A turn that starts before the idle time is up cancels the collection; its end re-arms it.
    idle.observer.onTurnStart!(turn);
    idle.observer.onTurnEnd!(ended);
    vi.advanceTimersByTime(IDLE_COLLECT_AFTER_MS / 2);
    idle.observer.onTurnStart!(turn);
    vi.advanceTimersByTime(IDLE_COLLECT_AFTER_MS);
    expect(gc).toHaveBeenCalledTimes(2);
    idle.observer.onTurnEnd!(ended);
    vi.advanceTimersByTime(IDLE_COLLECT_AFTER_MS);
    expect(gc).toHaveBeenCalledTimes(3);

    // Quiet without turns: no further collections.
    vi.advanceTimersByTime(IDLE_COLLECT_AFTER_MS * 10);
    expect(gc).toHaveBeenCalledTimes(3);
  });

  it('stops scheduling at shutdown', () => {
    const gc = vi.fn();
    const idle = idleMemory(silentLogger, { gc })!;
    idle.started();
    idle.stop();
    vi.advanceTimersByTime(STARTED_COLLECT_AFTER_MS * 10);
    idle.observer.onTurnStart!(turn);
    idle.observer.onTurnEnd!(ended);
    vi.advanceTimersByTime(IDLE_COLLECT_AFTER_MS * 2);
    expect(gc).not.toHaveBeenCalled();
  });

  it('a gc that refuses the options turns the feature off, once, with a warning', () => {
    const gc = vi.fn(() => {
      throw new TypeError('bad options');
    });
    const warn = vi.fn();
    const idle = idleMemory({ ...silentLogger, warn } as unknown as typeof silentLogger, { gc })!;
    idle.started();
    vi.advanceTimersByTime(STARTED_COLLECT_AFTER_MS);
    idle.observer.onTurnStart!(turn);
    idle.observer.onTurnEnd!(ended);
    vi.advanceTimersByTime(IDLE_COLLECT_AFTER_MS * 2);
    expect(gc).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('does nothing without --expose-gc', () => {
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
    expect(idleMemory(silentLogger)).toBeUndefined();
  });
});
