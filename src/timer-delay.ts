/**
 * A timer holds its delay in a signed 32-bit integer: Node fires a longer one (a platform's
 * Retry-After of 25 days or more, or a deadline read off another clock) after 1 ms, so a loop that
 * waits "until then" would spin a thousand times a second instead of waiting. Every delay that can
 * come from outside is cut to the longest a timer holds.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** `ms` as a timer can hold it: at least 0, at most MAX_TIMER_DELAY_MS (NaN: 0). */
export function timerDelay(ms: number): number {
  if (Number.isNaN(ms)) return 0;
  return Math.min(Math.max(0, ms), MAX_TIMER_DELAY_MS);
}
