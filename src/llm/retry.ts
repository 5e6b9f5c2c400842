/**
 * The one retry policy for every provider (the SDKs' own retries are off so counts are true):
 * 429 waits the server's hint then backs off exponentially; 5xx, 529 and network errors back off
 * likewise; everything else fails at once. Nothing is retried once a text, reasoning or tool-call
 * part has been yielded, because the user has already seen it.
 */
import type { Logger } from 'pino';
import { LlmError } from '../errors.js';
import { RETRYABLE_CODES, retryAfterOf } from './http-failure.js';
import { deadlineOf } from './turn-deadline.js';
import type { StreamPart } from './types.js';

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

export interface RetryContext {
  policy: RetryPolicy;
  signal?: AbortSignal;
  logger: Logger;
  label: string;
  sleep?: SleepFn;
}

/** Parts that the user may already have seen; after one of them an error is final. */
function commits(part: StreamPart): boolean {
  return part.type === 'text' || part.type === 'reasoning' || part.type === 'tool-call';
}

/**
 * Runs `attempt` (one HTTP call, already throwing mapped LlmErrors) and retries per the policy.
 */
export async function* withRetry(
  attempt: (n: number) => AsyncIterable<StreamPart>,
  ctx: RetryContext,
): AsyncGenerator<StreamPart> {
  const sleep = ctx.sleep ?? abortableSleep;
  for (let n = 0; ; n++) {
    let committed = false;
    try {
      for await (const part of attempt(n)) {
        if (commits(part)) committed = true;
        yield part;
      }
      return;
    } catch (err) {
      const error = err instanceof LlmError ? err : new LlmError('network', String(err), {}, { cause: err });
      const retryable = RETRYABLE_CODES.has(error.code) && !committed && n < ctx.policy.maxRetries;
      if (!retryable) throw withRetryCount(error, n);
      const delay = retryDelay(error, n, ctx.policy);
      // A wait that ends after the turn's deadline only turns "rate limited" into "took too long".
      const deadline = deadlineOf(ctx.signal);
      if (deadline !== undefined && Date.now() + delay >= deadline) {
        ctx.logger.warn(
          { llm: ctx.label, code: error.code, delayMs: delay, remainingMs: deadline - Date.now() },
          'LLM retry wait does not fit in the turn: giving up now',
        );
        throw withRetryCount(error, n);
      }
      ctx.logger.warn(
        { llm: ctx.label, code: error.code, status: error.details.status, retry: n + 1, delayMs: delay },
        'LLM call failed, retrying',
      );
      await sleep(delay, ctx.signal);
    }
  }
}

function withRetryCount(error: LlmError, retries: number): LlmError {
  if (retries === 0) return error;
  return new LlmError(
    error.code,
    `${error.message} (after ${retries} ${retries === 1 ? 'retry' : 'retries'})`,
    { ...error.details, retries },
    { cause: error },
  );
}
