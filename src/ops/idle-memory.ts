/**
 * Gives the heap's slack back once Scout is idle: after start-up, and after each spell of turns.
 *
 * Why: V8's memory reducer is meant to do this, and on Node 24 (V8 13.6) it does not. In a process
 * that went quiet after a burst, every check reads the burst's allocation rate ("high alloc" under
 * `--trace-memory-reducer`) and waits again. So the young generation keeps the 16 MiB it grew to
 * during start-up, and the old space keeps the burst's garbage. Scout idled at 96–98 MiB of RSS on
 * Node 24 against 67–83 MiB on Node 20, where the reducer runs. Here Scout asks for the collection V8
 * makes under memory pressure instead: `gc()` with the last-resort flavour, full collections that
 * shrink the heap (about 40 ms on an idle heap; RSS −12 to −13 MiB on Node 24).
 *
 * On Node 20 (V8 11.3) `gc` takes no flavour and runs a plain full collection, which costs an idle
 * process a few milliseconds and does not shrink the heap. V8's own reducer would, but it works by
 * incremental marking, which the start flags turn off (`--no-incremental-marking`, for bursts of
 * turns): a Node 20 process idles some 10 MiB higher after a burst (docs/operations.md).
 *
 * `gc` exists only with `--expose-gc`, which the start flags (package.json, the Docker image) pass.
 * Without it (tests, `node dist/…` by hand) nothing is scheduled and V8's own reducer is all there is.
 * The collection never runs while a turn does: it waits for IDLE_COLLECT_AFTER_MS without one.
 */
import type { TurnObserver } from '../core/scout-deps.js';
import type { Logger } from '../logger.js';

/** No turn for this long counts as idle (V8's own reducer waits 8 s after busy collections). */
export const IDLE_COLLECT_AFTER_MS = 10_000;
/** After start-up: its garbage (module loading, connecting) is dead once the surfaces run. */
export const STARTED_COLLECT_AFTER_MS = 1_000;

/** V8's `gc` as `--expose-gc` provides it (options since V8 9; `flavor` since V8 11). */
export type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export interface IdleMemory {
  /** Counts the turns running (a collection waits until none does). */
  readonly observer: TurnObserver;
  /** The surfaces run: start-up's garbage can go. */
  started(): void;
  stop(): void;
}

export function idleMemory(
  logger: Logger,
  options: { gc?: GcFunction; afterMs?: number; afterStartMs?: number } = {},
): IdleMemory | undefined {
  const gc = options.gc ?? (globalThis as { gc?: GcFunction }).gc;
  if (typeof gc !== 'function') return undefined;
  const afterMs = options.afterMs ?? IDLE_COLLECT_AFTER_MS;
  const afterStartMs = options.afterStartMs ?? STARTED_COLLECT_AFTER_MS;
  let running = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const collect = () => {
    timer = undefined;
    if (running > 0 || stopped) return;
    const rssBefore = process.memoryUsage.rss();
    const began = performance.now();
    try {
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    } catch (err) {
      // A runtime whose `gc` takes other options: fall back to V8's own reducer for good.
      stopped = true;
      logger.warn({ err }, 'idle heap collection unavailable');
      return;
    }
    logger.debug(
      {
        ms: Math.round(performance.now() - began),
        rssBeforeMiB: Math.round(rssBefore / 2 ** 20),
        rssAfterMiB: Math.round(process.memoryUsage.rss() / 2 ** 20),
      },
      'idle: heap collected',
    );
  };
  const arm = (ms: number) => {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(collect, ms);
    timer.unref();
  };

  return {
    observer: {
      onTurnStart() {
        running++;
        clearTimeout(timer);
        timer = undefined;
      },
      onTurnEnd() {
        running = Math.max(0, running - 1);
        if (running === 0) arm(afterMs);
      },
    },
    started() {
      if (running === 0) arm(afterStartMs);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
