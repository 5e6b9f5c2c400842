/**
 * When a turn must be over, attached to the turn's AbortSignal, so the retry policy can tell whether
 * waiting out a provider's `retry-after` still fits. A wait that cannot fit fails at once with the
 * rate-limit error instead of sleeping past the turn's limit and then reporting a timeout.
 */
const deadlines = new WeakMap<AbortSignal, number>();

/** Marks `signal` as belonging to a turn that must end by `deadlineAt` (epoch ms); returns it. */
export function withDeadline(signal: AbortSignal, deadlineAt: number): AbortSignal {
  deadlines.set(signal, deadlineAt);
  return signal;
}

/** The deadline attached to `signal`, if any. */
export function deadlineOf(signal: AbortSignal | undefined): number | undefined {
  return signal ? deadlines.get(signal) : undefined;
}
