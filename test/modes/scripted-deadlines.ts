/**
 * A deadline clock the test moves by hand (the `clock` option of the agent and the plan runner):
 * `timeout(ms)` signals abort (TimeoutError, as `AbortSignal.timeout` does) when `advance` passes
 * it, synchronously; `expired()` counts them. A time limit then passes at a point of the script (a
 * call under way, a step running), not after a while of the machine's time.
 */
import type { DeadlineClock } from '../../src/modes/turn/answer-budget.js';

export function scriptedDeadlines(): DeadlineClock & { advance(ms: number): void; expired(): number } {
  let now = Date.now();
  let expired = 0;
  const pending: { at: number; controller: AbortController }[] = [];
  return {
    now: () => now,
    timeout(ms) {
      const controller = new AbortController();
      pending.push({ at: now + ms, controller });
      return controller.signal;
    },
    advance(ms) {
      now += ms;
      for (const timer of pending.filter((p) => p.at <= now && !p.controller.signal.aborted)) {
        expired += 1;
        timer.controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      }
    },
    expired: () => expired,
  };
}
