/**
 * The one delivery policy for every write a surface makes (post, edit, delete, ephemeral). Adapters
 * map their platform's errors to a `DeliveryError` (Slack Web API codes, discord.js errors) so the
 * renderer decides the same way everywhere:
 *
 * - rate limited: retried after the platform's `retryAfterMs`, never sooner;
 * - retryable (5xx, network, timeout): retried with backoff;
 * - refused (no permission, not in the channel): the turn stops writing there at the first refusal;
 * - gone (the message was deleted): nothing is sent to that message again;
 * - anything else (a payload the platform rejects): logged once, not retried blindly.
 *
 * Intermediate edits may be dropped; the final state of a turn is retried until it lands or
 * `FINAL_DEADLINE_MS` passed (then logged with what is missing).
 */

export type DeliveryKind = 'rate-limited' | 'retryable' | 'refused' | 'gone' | 'rejected';

/** How long the final state of a turn keeps being retried (rate limits, outages) before it is logged lost. */
export const FINAL_DEADLINE_MS = 120_000;
/** Backoff for retryable failures: doubles from the edit interval up to this. */
export const MAX_BACKOFF_MS = 10_000;

export interface DeliveryErrorInfo {
  kind: DeliveryKind;
  /** The platform's error code (`ratelimited`, `not_in_channel`, `50013`, HTTP status…). */
  code: string;
  /** For `rate-limited`: how long the platform asked to wait. */
  retryAfterMs?: number;
}

/** A platform write that failed, classified. `message` is the platform code, never a payload. */
export class DeliveryError extends Error {
  readonly kind: DeliveryKind;
  readonly code: string;
  readonly retryAfterMs: number | undefined;

  constructor(info: DeliveryErrorInfo, cause?: unknown) {
    super(`${info.kind}: ${info.code}`, cause === undefined ? undefined : { cause });
    this.name = 'DeliveryError';
    this.kind = info.kind;
    this.code = info.code;
    this.retryAfterMs = info.retryAfterMs;
  }
}

/**
 * The delay a rate-limited platform asked for, from a `DeliveryError` or any error carrying
 * `retryAfterMs`.
 */
export function retryAfterMsOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value = (error as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The kind of a failed write; errors no adapter classified are `undefined` (treated cautiously). */
export function deliveryKindOf(error: unknown): DeliveryKind | undefined {
  if (error instanceof DeliveryError) return error.kind;
  return retryAfterMsOf(error) !== undefined ? 'rate-limited' : undefined;
}

/** Worth sending the same payload again later (rate limits and outages). */
export function isRetryable(error: unknown): boolean {
  const kind = deliveryKindOf(error);
  return kind === 'rate-limited' || kind === 'retryable';
}

/** The platform refuses Scout's writes here: stop at the first refusal and tell the user privately. */
export function isRefused(error: unknown): boolean {
  return deliveryKindOf(error) === 'refused';
}

/** The message no longer exists: never send to it again. */
export function isGone(error: unknown): boolean {
  return deliveryKindOf(error) === 'gone';
}

/** A short, log-safe description of a failed write: its platform code, never its payload. */
export function describeDeliveryError(error: unknown): string {
  if (error instanceof DeliveryError) return error.message;
  if (error instanceof Error) return error.message.slice(0, 200);
  return String(error).slice(0, 200);
}

/**
 * Runs one final write until it lands: rate limits wait the server's delay, outages back off, other
 * failures are thrown at once; after `deadlineMs` the last failure is thrown.
 */
export async function landFinal<T>(
  call: () => Promise<T>,
  deadlineMs: number = FINAL_DEADLINE_MS,
): Promise<T> {
  const giveUpAt = Date.now() + deadlineMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (!isRetryable(err)) throw err;
      const wait = retryAfterMsOf(err) ?? Math.min(MAX_BACKOFF_MS, 500 * 2 ** attempt);
      if (Date.now() + wait > giveUpAt) throw err;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
