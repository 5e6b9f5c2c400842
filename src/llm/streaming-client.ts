/**
 * The provider-independent half of every client: validation already done, this adds the time
 * limits (StreamGuard), the retry policy (withRetry), one optional repaired resend (DeepSeek),
 * latency on the finish part, the empty-response check, and `complete()` on top of `stream()`.
 * A provider only supplies a `ProviderDriver`: one HTTP attempt and its error mapper.
 */
import type { Logger } from 'pino';
import { LlmError, type LlmErrorDetails } from '../errors.js';
import { collectResponse } from './collect-response.js';
import { type RetryPolicy, type SleepFn, withRetry } from './retry.js';
import { StreamGuard } from './stream-guard.js';
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
  /** One HTTP attempt, streamed; yields parts ending with `finish` (latency filled in here). Throws SDK errors. */
  attempt(request: LlmRequest, io: AttemptIo): AsyncIterable<StreamPart>;
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

  async function* attemptOnce(request: LlmRequest): AsyncGenerator<StreamPart> {
    await driver.ready?.();
    const guard = new StreamGuard({
      idleTimeoutMs: settings.timeoutMs,
      maxStreamMs: settings.maxStreamMs,
      signal: request.signal,
    });
    const stopped = (): LlmError | undefined => {
      const details = { provider: config.provider, model: config.model };
      if (guard.timedOut === 'idle') {
        return new LlmError('timeout', `${label}: no response within ${settings.timeoutMs} ms`, details);
      }
      if (guard.timedOut === 'total') {
        return new LlmError('timeout', `${label}: stream ran past ${settings.maxStreamMs} ms`, details);
      }
      if (guard.cancelledByCaller) return new LlmError('cancelled', `${label}: cancelled`, details);
      return undefined;
    };
    try {
      for await (const part of driver.attempt(request, { signal: guard.signal, touch: guard.touch })) {
        // The SDKs end a stream quietly when it is aborted; check why before trusting what came.
        const reason = stopped();
        if (reason) throw reason;
        yield part;
      }
    } catch (err) {
      throw stopped() ?? (err instanceof LlmError ? err : driver.mapError(err));
    } finally {
      guard.dispose();
    }
    const reason = stopped();
    if (reason) throw reason;
  }

  async function* stream(request: LlmRequest): AsyncGenerator<StreamPart> {
    const started = performance.now();
    let current = request;
    let recovery: RecoveryPlan | undefined;
    let answered = false; // some non-blank text came: not an empty response
    let committed = false; // the caller has seen something: no repaired resend
    let toolCalls = 0;
    let usage: Usage | undefined;
    const markup = new ToolMarkupFilter();
    for (;;) {
      try {
        const parts = withRetry(() => attemptOnce(current), {
          policy: settings.policy,
          signal: request.signal,
          logger,
          label,
          ...(settings.sleep ? { sleep: settings.sleep } : {}),
        });
        for await (const raw of parts) {
          let part = raw;
          if (part.type === 'text') {
            // Tool-call markup the model wrote as text is never shown raw.
            const text = markup.push(part.text);
            if (!text) continue;
            part = { type: 'text', text };
          }
          if (part.type === 'finish') {
            const rest = markup.end();
            if (rest) {
              if (rest.trim() !== '') answered = true;
              yield { type: 'text', text: rest };
            }
            if (markup.dropped > 0)
              logger.info({ llm: label, blocks: markup.dropped }, 'dropped tool-call markup written as text');
          }
          if (part.type === 'text' && part.text.trim() !== '') answered = true;
          if (part.type === 'text' || part.type === 'reasoning' || part.type === 'tool-call')
            committed = true;
          if (part.type === 'tool-call') toolCalls++;
          if (part.type === 'usage') usage = part.usage;
          if (part.type === 'finish') {
            const latencyMs = Math.round(performance.now() - started);
            if (!answered && toolCalls === 0) throw withUsage(noAnswer(part.reason), usage);
            logger.debug({ llm: label, reason: part.reason, latencyMs }, 'LLM call finished');
            yield { ...part, latencyMs };
            continue;
          }
          yield part;
        }
        return;
      } catch (err) {
        const error = err instanceof LlmError ? err : driver.mapError(err);
        if (recovery) throw recovery.failed(error);
        const plan = !committed ? driver.recover?.(error, current) : undefined;
        if (!plan) throw error;
        recovery = plan;
        current = plan.request;
      }
    }
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
