/** How long the answer model may write once the tools (agent rounds, plan steps) have run. */

/**
 * After the time limit the answer model gets this fresh budget to write from what was gathered:
 * long enough for a short streamed answer, short enough that a timed-out turn ends promptly.
 */
export const ANSWER_GRACE_MS = 20_000;

/**
 * What a turn's time limit is measured with: the wall clock in production; a test passes its own so
 * that "the tools ended just before the limit" is a fact of the script, not a race with the machine.
 */
export interface DeadlineClock {
  now(): number;
  /** A signal aborted (as `AbortSignal.timeout` does, with a TimeoutError) `ms` from now. */
  timeout(ms: number): AbortSignal;
}

export const WALL_CLOCK: DeadlineClock = {
  now: () => Date.now(),
  timeout: (ms) => AbortSignal.timeout(ms),
};

/**
 * The answer phase's signal: Stop, or the rest of the time limit but at least `graceMs` (after a
 * timeout the rest is zero, so the answer gets exactly the grace budget).
 */
export function answerBudget(
  stop: AbortSignal,
  deadlineAt: number,
  graceMs: number,
  clock: DeadlineClock = WALL_CLOCK,
): AbortSignal {
  return AbortSignal.any([stop, clock.timeout(Math.max(deadlineAt - clock.now(), graceMs))]);
}
