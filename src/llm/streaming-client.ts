/**
 * The provider-independent half of every client: validation already done, this adds the time
 * limits (StreamGuard), the retry policy (retry.ts), one optional repaired resend (DeepSeek),
 * latency on the finish part, the empty-response check, and `complete()` on top of `stream()`.
 * A provider only supplies a `ProviderDriver`: one HTTP attempt and its error mapper.
 * All of it is one loop around the driver's stream: every chunk passes one generator here, not
 * one per concern (this runs for every token of every answer).
 */
import type { Logger } from 'pino';
import { LlmError, type LlmErrorDetails } from '../errors.js';
import { collectResponse } from './collect-response.js';
import { abortableSleep, afterRetries, type RetryPolicy, retryWait, type SleepFn } from './retry.js';
import { StreamGuard } from './stream-guard.js';
import { deadlineOf } from './turn-deadline.js';
import type {
  FinishReason,
  LlmClient,
  LlmRequest,
  LlmResponse,
  ModelConfig,
  StreamPart,
  Usage,
} from './types.js';
import { sentMaxTokens } from './model-config.js';
import { ToolMarkupFilter } from './tool-markup-filter.js';
import { withUsage } from './usage.js';

export interface AttemptIo {
  /** Abort signal combining the caller's and the guard's. Pass it to the SDK. */
  signal: AbortSignal;
  /** Call on every raw chunk (keeps the idle timer from firing). */
  touch: () => void;
}

export interface RecoveryPlan {
  request: LlmRequest;
  /** Builds the error to throw when the repaired resend fails too. */
  failed: (error: LlmError) => LlmError;
}

export interface ProviderDriver {
  /** The model id sent to the API (DeepSeek aliases resolved). */
  readonly apiModel: string;
  /**
   * One HTTP attempt, streamed; yields parts ending with `finish` (latency filled in here), those
   * of one network chunk together (one async step per chunk, not per part). Throws SDK errors.
   */
  attempt(request: LlmRequest, io: AttemptIo): AsyncIterable<StreamPart[]>;
  /** Maps any SDK/network failure to an LlmError (auth, rate_limited, …). */
  mapError(error: unknown): LlmError;
  /** A chance to repair the request once after a final error (DeepSeek reasoning_content). */
  recover?(error: LlmError, request: LlmRequest): RecoveryPlan | undefined;
  /** Resolves once the driver can make a call (its SDK loaded); awaited before the time limits start. */
  ready?(): Promise<void>;
}

export interface ClientSettings {
  logger: Logger;
  policy: RetryPolicy;
  /** No response (first byte or next chunk) within this → 'timeout'. */
  timeoutMs: number;
  /** Whole stream bound, since the SDK timeout stops at headers. */
  maxStreamMs: number;
  sleep?: SleepFn;
}

export function createStreamingClient(
  config: ModelConfig,
  label: string,
  driver: ProviderDriver,
  settings: ClientSettings,
): LlmClient {
  const { logger } = settings;
  const maxTokens = sentMaxTokens(config);

  /** Why the guard stopped the stream, if it did (the SDKs end an aborted stream quietly). */
  function stopped(guard: StreamGuard): LlmError | undefined {
    // Asked for every chunk: nothing is allocated unless the guard did stop the stream. The guard's
    // own flag first: set whenever its signal is aborted, the caller's Stop included. The caller's
    // signal is often composite (AbortSignal.any), and reading its `aborted` makes Node walk its
    // sources each time (about 1 % of a busy bot's CPU on Node 24); even a plain signal's `aborted`
    // is a brand-checked getter.
    if (!guard.aborted) return undefined;
    if (guard.timedOut === undefined && !guard.cancelledByCaller) return undefined;
    const details = { provider: config.provider, model: config.model };
    if (guard.timedOut === 'idle') {
      return new LlmError('timeout', `${label}: no response within ${settings.timeoutMs} ms`, details);
    }
    if (guard.timedOut === 'total') {
      return new LlmError('timeout', `${label}: stream ran past ${settings.maxStreamMs} ms`, details);
    }
    if (guard.cancelledByCaller) return new LlmError('cancelled', `${label}: cancelled`, details);
    return undefined;
  }

  const sleep = settings.sleep ?? abortableSleep;

  async function* stream(request: LlmRequest): AsyncGenerator<StreamPart> {
    const started = performance.now();
    let current = request;
    let recovery: RecoveryPlan | undefined;
    let answered = false; // some non-blank text came: not an empty response
    let committed = false; // the caller has seen something: no retry, no repaired resend
    let toolCalls = 0;
    let usage: Usage | undefined;
    const markup = new ToolMarkupFilter();
    // Thrown past the retry policy as it is (a complete stream with nothing to show).
    let final: LlmError | undefined;
    for (;;) {
      try {
        for (let n = 0; ; n++) {
          try {
            // Loading the provider's SDK is not the provider being silent: limits start after it.
            await driver.ready?.();
            const guard = new StreamGuard({
              idleTimeoutMs: settings.timeoutMs,
              maxStreamMs: settings.maxStreamMs,
              signal: request.signal,
            });
            let received = false; // this attempt got a part: the connection worked
            try {
              for await (const parts of driver.attempt(current, {
                signal: guard.signal,
                touch: guard.touch,
              })) {
                for (const part of parts) {
                  received = true;
                  const reason = stopped(guard);
                  if (reason) throw reason;
                  if (part.type === 'text') {
                    committed = true;
                    // Tool-call markup the model wrote as text is never shown raw.
                    const text = markup.push(part.text);
                    if (!text) continue;
                    if (!answered && text.trim() !== '') answered = true;
                    yield text === part.text ? part : { type: 'text', text };
                    continue;
                  }
                  if (part.type === 'reasoning') committed = true;
                  else if (part.type === 'tool-call') {
                    committed = true;
                    toolCalls++;
                  } else if (part.type === 'usage') usage = part.usage;
                  else if (part.type === 'finish') {
                    const rest = markup.end();
                    if (rest) {
                      if (rest.trim() !== '') answered = true;
                      yield { type: 'text', text: rest };
                    }
                    if (markup.dropped > 0)
                      logger.info(
                        { llm: label, blocks: markup.dropped },
                        'dropped tool-call markup written as text',
                      );
                    const latencyMs = Math.round(performance.now() - started);
                    if (!answered && toolCalls === 0) {
                      final = withUsage(noAnswer(part.reason), usage);
                      throw final;
                    }
                    logger.debug({ llm: label, reason: part.reason, latencyMs }, 'LLM call finished');
                    yield { ...part, latencyMs };
                    continue;
                  }
                  yield part;
                }
              }
            } catch (err) {
              if (err === final) throw err;
              const error = stopped(guard) ?? (err instanceof LlmError ? err : driver.mapError(err));
              throw received ? cutShort(error) : error;
            } finally {
              guard.dispose();
            }
            const reason = stopped(guard);
            if (reason) throw reason;
            return;
          } catch (err) {
            if (err === final) throw err;
            const error =
              err instanceof LlmError ? err : new LlmError('network', String(err), {}, { cause: err });
            const delay = retryWait(error, n, committed, settings.policy);
            if (delay === undefined) throw afterRetries(error, n);
            // A wait that ends after the turn's deadline only turns "rate limited" into "took too long".
            const deadline = deadlineOf(request.signal);
            if (deadline !== undefined && Date.now() + delay >= deadline) {
              logger.warn(
                { llm: label, code: error.code, delayMs: delay, remainingMs: deadline - Date.now() },
                'LLM retry wait does not fit in the turn: giving up now',
              );
              throw afterRetries(error, n);
            }
            logger.warn(
              { llm: label, code: error.code, status: error.details.status, retry: n + 1, delayMs: delay },
              'LLM call failed, retrying',
            );
            await sleep(delay, request.signal);
          }
        }
      } catch (err) {
        if (err === final) throw err;
        const error = err instanceof LlmError ? err : driver.mapError(err);
        if (recovery) throw recovery.failed(error);
        const plan = !committed ? driver.recover?.(error, current) : undefined;
        if (!plan) throw error;
        recovery = plan;
        current = plan.request;
      }
    }
  }

  /**
   * A network failure after parts of the answer had arrived: the server was reached, so what it says
   * is "the answer was cut off", not where the server is or what to check in its URL.
   */
  function cutShort(error: LlmError): LlmError {
    if (error.code !== 'network' || error.details.streamCut) return error;
    const why = error.details.connectFailure ?? 'network error';
    return new LlmError(
      'network',
      `${label}: the stream broke after the answer had started (${why})`,
      { provider: config.provider, model: config.model, streamCut: true },
      { cause: error },
    );
  }

  /** Why a stream that finished without answer text or a tool call has nothing to show. */
  function noAnswer(reason: FinishReason): LlmError {
    const details: LlmErrorDetails = { provider: config.provider, model: config.model };
    if (maxTokens !== undefined) details.maxTokens = maxTokens;
    if (reason === 'length') {
      // A reasoning model can spend the whole budget thinking: the thought was shown, the answer never came.
      return new LlmError(
        'truncated',
        `${label}: output cut at max_tokens=${maxTokens ?? 'server limit'} before any answer`,
        details,
      );
    }
    if (reason === 'content_filter') {
      return new LlmError('refused', `${label}: the provider's safety system stopped the answer`, details);
    }
    return new LlmError(
      'empty_response',
      `${label}: the model returned no output (finish reason ${reason})`,
      details,
    );
  }

  return {
    config,
    label,
    stream,
    complete: (request: LlmRequest): Promise<LlmResponse> => collectResponse(stream(request)),
  };
}
