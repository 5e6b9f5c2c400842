/**
 * How long this thread's event loop was held, as the other conversations on it would feel it. A 5 ms
 * ticker runs while the meter does; each gap between its ticks counts as the time the loop was busy
 * in it (its event-loop utilisation), never more than the gap itself. A loaded machine that
 * deschedules the process while the loop waits is not a stall of ours (wall time alone counted it:
 * 270-530 ms on a 2-core machine with four busy loops, where the code held the loop a few ms); work
 * that holds the loop is, however slowly the machine runs it. Work in a worker thread or a child
 * process is not on this loop and does not count.
 */
import { performance } from 'node:perf_hooks';

export interface StallMeter {
  /** Stops the ticker; the longest stall seen, in ms. */
  stop(): number;
}

export function startStallMeter(): StallMeter {
  let last = performance.now();
  let lastUse = performance.eventLoopUtilization();
  let worst = 0;
  const tick = () => {
    const now = performance.now();
    const use = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(use, lastUse).active;
    worst = Math.max(worst, Math.min(now - last, busy));
    last = now;
    lastUse = use;
  };
  const ticker = setInterval(tick, 5);
  return {
    stop() {
      tick();
      clearInterval(ticker);
      return worst;
    },
  };
}
