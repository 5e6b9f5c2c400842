/**
 * The one retry policy for every provider (the SDKs' own retries are off so counts are true):
 * 429 waits the server's hint then backs off exponentially; 5xx, 529 and network errors back off
 * likewise; everything else fails at once. Nothing is retried once a text, reasoning or tool-call
 * part has been yielded, because the user has already seen it.
 */
import { LlmError } from '../errors.js';
import { RETRYABLE_CODES, retryAfterOf } from './http-failure.js';

export interface RetryPolicy {
  /** Retries after the first attempt (spec: at most 3). */
  maxRetries: number;
  /** First backoff step; doubles each retry. Tests shrink it to a few ms. */
  baseDelayMs: number;
  /** Ceiling for any single wait, server hints included, so a turn never stalls for minutes. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 1000, maxDelayMs: 60_000 };

export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Resolves after `ms`, rejects with LlmError('cancelled') when the signal aborts first. */
export const abortableSleep: SleepFn = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new LlmError('cancelled', 'cancelled while waiting to retry'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LlmError('cancelled', 'cancelled while waiting to retry'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Backoff for retry number `attempt` (0-based): the server's hint if any, else base·2^attempt with ±20 % jitter. */
export function retryDelay(error: LlmError, attempt: number, policy: RetryPolicy): number {
  const hint = retryAfterOf(error);
  // Jitter spreads retries of many concurrent turns so they do not hit the provider in lockstep.
  const backoff = policy.baseDelayMs * 2 ** attempt * (0.8 + Math.random() * 0.4);
  return Math.min(policy.maxDelayMs, Math.round(hint ?? backoff));
}

/**
 * The wait before retrying `error` after attempt `n` (0-based), or undefined when it is final:
 * a code that is not retryable, the user already saw part of the answer (`committed`), or the
 * retries are spent.
 */
export function retryWait(
  error: LlmError,
  n: number,
  committed: boolean,
  policy: RetryPolicy,
): number | undefined {
  if (!RETRYABLE_CODES.has(error.code) || committed || n >= policy.maxRetries) return undefined;
  return retryDelay(error, n, policy);
}

/** The final error after `retries` retries, saying how many there were. */
export function afterRetries(error: LlmError, retries: number): LlmError {
  if (retries === 0) return error;
  return new LlmError(
    error.code,
    `${error.message} (after ${retries} ${retries === 1 ? 'retry' : 'retries'})`,
    { ...error.details, retries },
    { cause: error },
  );
}
