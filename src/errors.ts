/**
 * Error classes with codes. Each external service has one mapper that turns its failures into one of
 * these (see `src/llm/map-error.ts`, `src/search/`); `toUserMessage` in `src/i18n` turns any of them
 * into what a person sees. Messages here are for logs and may name variables, never secrets.
 */
import type { Usage } from './llm/types.js';

export type LlmErrorCode =
  | 'auth' // 401/403: wrong or missing key
  | 'insufficient_balance' // 402: never retried
  | 'rate_limited' // 429 after the retries ran out
  | 'overloaded' // 529 / 503 after retries
  | 'server' // other 5xx after retries
  | 'network' // connection failures after retries
  | 'timeout' // no response within the request timeout
  | 'bad_request' // other 4xx
  | 'reasoning_content' // DeepSeek rejected history even after one repaired resend
  | 'empty_response' // the model returned no output (and did not say why)
  | 'truncated' // the output ran into max_tokens before any answer text or tool call
  | 'refused' // the provider's safety system stopped the answer
  | 'context_too_long' // the prompt does not fit the model's context window
  | 'cancelled'; // aborted by the caller (Stop, time limit)

export class ScoutError extends Error {
  constructor(
    message: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A configuration problem: one line per issue, each naming the variable or option. */
export class ConfigError extends ScoutError {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'), 'config');
  }
}

/** Why a connection to a provider failed, in the terms a user checks (see `connectFailureOf`). */
export type ConnectFailure = 'refused' | 'host-not-found' | 'unreachable' | 'timed-out' | 'reset' | 'tls';

export interface LlmErrorDetails {
  /** Connection failures: the base URL that could not be reached, and why. */
  endpoint?: string;
  connectFailure?: ConnectFailure;
  /** The connection had worked (parts of the answer arrived) and then broke: not a base-URL problem. */
  streamCut?: boolean;
  provider?: string;
  model?: string;
  status?: number;
  retries?: number;
  /** The provider's own error code or type (`tool_use_failed`, `invalid_request_error`). */
  providerCode?: string;
  /** The provider's own message, secrets redacted and shortened; safe to show. */
  providerMessage?: string;
  /** The max_tokens the request was sent with (truncated answers). */
  maxTokens?: number;
  /** Which `/model` slot the failing model sits in, for the hint that names the command. */
  modelSlot?: 'tool' | 'answer';
  /** Tokens the provider reported before the failure (last known usage), for the footer and cost. */
  usage?: Usage;
}

export class LlmError extends ScoutError {
  declare readonly code: LlmErrorCode;
  constructor(
    code: LlmErrorCode,
    message: string,
    readonly details: LlmErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, code, options);
  }
}

export class SearchError extends ScoutError {
  constructor(
    message: string,
    readonly provider: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, 'search', options);
  }
}

export class StoreError extends ScoutError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'store', options);
  }
}

export class CancelledError extends ScoutError {
  constructor(message = 'cancelled') {
    super(message, 'cancelled');
  }
}

export function isAbortError(err: unknown): boolean {
  return (
    err instanceof CancelledError ||
    (err instanceof LlmError && err.code === 'cancelled') ||
    (err instanceof Error && (err.name === 'AbortError' || err.name === 'APIUserAbortError'))
  );
}
