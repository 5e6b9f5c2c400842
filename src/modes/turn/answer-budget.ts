/** How long the answer model may write once the tools (agent rounds, plan steps) have run. */

/**
 * After the time limit the answer model gets this fresh budget to write from what was gathered:
 * long enough for a short streamed answer, short enough that a timed-out turn ends promptly.
 */
export const ANSWER_GRACE_MS = 20_000;

/**
 * The answer phase's signal: Stop, or the rest of the time limit but at least `graceMs` (after a
 * timeout the rest is zero, so the answer gets exactly the grace budget).
 */
export function answerBudget(stop: AbortSignal, deadlineAt: number, graceMs: number): AbortSignal {
  return AbortSignal.any([stop, AbortSignal.timeout(Math.max(deadlineAt - Date.now(), graceMs))]);
}
