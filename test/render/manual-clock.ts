/**
 * A synchronous clock for the render tests that run thousands of turns: timers fire only when the
 * test advances time, and each step lets pending promises settle, so a fuzz run takes milliseconds.
 */
import type { EditorClock } from '../../src/render/editor-clock.js';

export interface ManualClock extends EditorClock {
  /** Lets every pending promise settle (one macrotask). */
  tick(): Promise<void>;
  /** Advances time by `ms`, firing due timers in order. */
  advance(ms: number): Promise<void>;
  /** Fires timers (advancing time) until `promise` settles; throws if nothing is left to fire. */
  until<T>(promise: Promise<T>): Promise<T>;
}

export function manualClock(): ManualClock {
  let now = 0;
  let nextId = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
  const earliest = () => {
    let best: [number, { at: number; fn: () => void }] | undefined;
    for (const entry of timers) if (!best || entry[1].at < best[1].at) best = entry;
    return best;
  };
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = ++nextId;
      timers.set(id, { at: now + Math.max(0, ms), fn });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    tick,
    async advance(ms) {
      const target = now + ms;
      for (;;) {
        await tick();
        const next = earliest();
        if (!next || next[1].at > target) break;
        timers.delete(next[0]);
        now = Math.max(now, next[1].at);
        next[1].fn();
      }
      now = target;
      await tick();
    },
    async until(promise) {
      let settled = false;
      const watched = promise.finally(() => {
        settled = true;
      });
      for (let i = 0; !settled; i++) {
        for (let idle = 0; idle < 5 && !settled && timers.size === 0; idle++) await tick();
        await tick();
        if (settled) break;
        const next = earliest();
        if (!next) throw new Error('manualClock.until: nothing left to run and the promise is pending');
        if (i > 100_000) throw new Error('manualClock.until: too many timers');
        timers.delete(next[0]);
        now = Math.max(now, next[1].at);
        next[1].fn();
      }
      return watched;
    },
  };
}
