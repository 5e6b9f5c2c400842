/**
 * Turns an HTTP status (and the provider's message) into an `LlmError` with the right code. Both
 * SDK mappers (`map-openai-error.ts`, `map-anthropic-error.ts`) end here, so the policy of which
 * status means what lives in one place.
 */
import { type ConnectFailure, LlmError, type LlmErrorCode, type LlmErrorDetails } from '../errors.js';
import { redactSecrets } from './redact.js';

export interface FailureContext {
  provider: string;
  model: string;
  /** Name of the variable holding the key, for the auth message ("check DEEPSEEK_API_KEY"). */
  keyVariable?: string;
  /** Configured secrets, scrubbed from any provider message. */
  secrets?: ReadonlyArray<string | undefined>;
  /** The base URL requests go to, named when it cannot be reached. */
  endpoint?: string | undefined;
}

/** Provider messages can be long HTML error pages; keep logs readable. */
const MAX_PROVIDER_MESSAGE_CHARS = 500;

/** Which codes the retry wrapper may retry (429, 5xx, 529, network). Timeouts are not retried: the user already waited. */
export const RETRYABLE_CODES: ReadonlySet<LlmErrorCode> = new Set([
  'rate_limited',
  'overloaded',
  'server',
  'network',
]);

export function codeForStatus(status: number): LlmErrorCode {
  if (status === 401 || status === 403) return 'auth';
  if (status === 402) return 'insufficient_balance';
  if (status === 429) return 'rate_limited';
  if (status === 529 || status === 503) return 'overloaded';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server';
  return 'bad_request';
}

/** What a provider's error body says about itself, whatever the provider's shape. */
export interface ProviderErrorBody {
  /** An HTTP-like status the body carries (`status_code`, a numeric `code`), if any. */
  status?: number;
  /** The provider's own code or type: `tool_use_failed`, `invalid_request_error`, … */
  code?: string;
  message?: string;
}

/**
 * Statuses for the error codes and types providers put in error bodies, for errors that arrive
 * inside a stream where there is no HTTP status (Groq `tool_use_failed`, Anthropic `event: error`).
 */
const STATUS_FOR_PROVIDER_CODE: Record<string, number> = {
  invalid_request_error: 400,
  invalid_request: 400,
  bad_request: 400,
  tool_use_failed: 400,
  context_length_exceeded: 400,
  exceed_context_size_error: 400,
  authentication_error: 401,
  invalid_api_key: 401,
  permission_error: 403,
  billing_error: 402,
  insufficient_quota: 402,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  overloaded_error: 529,
  api_error: 500,
  server_error: 500,
  internal_error: 500,
};

const isStatus = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 400 && v <= 599;

/** Reads `{message, code, type, status_code}` from an error object, or from `{error: {…}}` around it. */
export function readErrorBody(raw: unknown): ProviderErrorBody {
  if (!raw || typeof raw !== 'object') return typeof raw === 'string' && raw ? { message: raw } : {};
  const outer = raw as Record<string, unknown>;
  const body =
    outer['error'] && typeof outer['error'] === 'object'
      ? (outer['error'] as Record<string, unknown>)
      : outer;
  const out: ProviderErrorBody = {};
  if (typeof body['message'] === 'string') out.message = body['message'];
  const named = [body['code'], body['type'], body['status']].find(
    (v): v is string => typeof v === 'string' && v !== '',
  );
  if (named) out.code = named;
  const status = [body['status_code'], body['code'], body['status']].find(isStatus);
  if (status !== undefined) out.status = status;
  else {
    const byName = [body['code'], body['type']]
      .map((v) => (typeof v === 'string' ? STATUS_FOR_PROVIDER_CODE[v] : undefined))
      .find((v) => v !== undefined);
    if (byName !== undefined) out.status = byName;
  }
  return out;
}

/** The prompt does not fit the model: a bad request the user can act on (shorter thread, /reset). */
const CONTEXT_TOO_LONG =
  /context[_ ](?:length|window|size)|maximum context|prompt is too long|exceeds the available context|too many (?:input )?tokens in (?:the )?prompt/i;

/**
 * A server error caused by the request itself (llama.cpp answers 500 "Failed to parse tool call
 * arguments as JSON"): sending the same body again can only fail the same way.
 */
const DETERMINISTIC_SERVER_ERROR =
  /failed to parse|parse error|invalid json|not valid json|unexpected token|invalid (?:request|argument)/i;

export function httpFailure(
  status: number,
  providerMessage: string | undefined,
  ctx: FailureContext,
  providerCode?: string,
): LlmError {
  let code = codeForStatus(status);
  const details: LlmErrorDetails = { provider: ctx.provider, model: ctx.model, status };
  const who = `${ctx.provider}/${ctx.model}`;
  if (code === 'auth') {
    // Never echo the provider's text here: auth messages are the ones that quote keys.
    const hint = ctx.keyVariable ? ` (check ${ctx.keyVariable})` : '';
    return new LlmError('auth', `${who}: authentication failed, HTTP ${status}${hint}`, details);
  }
  const clean = redactSecrets(providerMessage ?? '', ctx.secrets)
    .slice(0, MAX_PROVIDER_MESSAGE_CHARS)
    .trim();
  const signal = `${providerCode ?? ''} ${clean}`;
  if ((code === 'bad_request' || status === 413) && CONTEXT_TOO_LONG.test(signal)) code = 'context_too_long';
  else if (code === 'server' && DETERMINISTIC_SERVER_ERROR.test(clean)) code = 'bad_request';
  if (clean) details.providerMessage = clean;
  if (providerCode) details.providerCode = redactSecrets(providerCode, ctx.secrets).slice(0, 80);
  const suffix = clean ? `: ${clean}` : '';
  const label: Record<LlmErrorCode, string> = {
    auth: 'authentication failed',
    insufficient_balance: 'insufficient balance',
    rate_limited: 'rate limited',
    overloaded: 'provider overloaded',
    server: 'provider error',
    network: 'network error',
    timeout: 'request timed out',
    bad_request: 'request rejected',
    context_too_long: 'prompt too long for the model',
    reasoning_content: 'reasoning_content rejected',
    empty_response: 'the model returned no output',
    truncated: 'output cut at the token limit',
    refused: 'refused by the provider',
    cancelled: 'cancelled',
  };
  const tag = details.providerCode ? ` ${details.providerCode}` : '';
  return new LlmError(code, `${who}: ${label[code]} (HTTP ${status}${tag})${suffix}`, details);
}

/** An error object from a response body or a stream event, classified by what it says about itself. */
export function bodyFailure(raw: unknown, fallbackMessage: string, ctx: FailureContext): LlmError {
  const body = readErrorBody(raw);
  // Nothing says what went wrong: a server-side failure, retried like one.
  return httpFailure(body.status ?? 500, body.message ?? fallbackMessage, ctx, body.code);
}

/** The request was aborted on purpose (Stop button, time limit): not a provider failure. */
export function cancelledFailure(ctx: FailureContext): LlmError {
  return new LlmError('cancelled', `${ctx.provider}/${ctx.model}: cancelled`, {
    provider: ctx.provider,
    model: ctx.model,
  });
}

export function networkFailure(cause: unknown, ctx: FailureContext): LlmError {
  const reason =
    cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : '';
  const clean = redactSecrets(reason, ctx.secrets).slice(0, MAX_PROVIDER_MESSAGE_CHARS);
  const details: LlmErrorDetails = { provider: ctx.provider, model: ctx.model };
  const connect = connectFailureOf(cause);
  if (connect && ctx.endpoint) {
    // The server was never reached: say where Scout tried and why, not "overloaded".
    details.endpoint = ctx.endpoint;
    details.connectFailure = connect;
    return new LlmError(
      'network',
      `${ctx.provider}/${ctx.model}: could not connect to ${ctx.endpoint} (${connect})`,
      details,
      { cause },
    );
  }
  return new LlmError(
    'network',
    `${ctx.provider}/${ctx.model}: network error${clean ? `: ${clean}` : ''}`,
    details,
    { cause },
  );
}

/** System error codes meaning the connection itself failed, by what the user should check. */
const CONNECT_FAILURES: Record<string, ConnectFailure> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'host-not-found',
  EAI_AGAIN: 'host-not-found',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  ETIMEDOUT: 'timed-out',
  UND_ERR_CONNECT_TIMEOUT: 'timed-out',
  ECONNRESET: 'reset',
  UND_ERR_SOCKET: 'reset',
  CERT_HAS_EXPIRED: 'tls',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'tls',
  SELF_SIGNED_CERT_IN_CHAIN: 'tls',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls',
  ERR_TLS_CERT_ALTNAME_INVALID: 'tls',
  EPROTO: 'tls',
};

/** The connect-level cause of a transport error (SDK error → fetch error → system error), if any. */
export function connectFailureOf(err: unknown): ConnectFailure | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECT_FAILURES[code]) return CONNECT_FAILURES[code];
    // Happy eyeballs (localhost → ::1 and 127.0.0.1) fails with an AggregateError of both attempts.
    if (current instanceof AggregateError) {
      for (const inner of current.errors) {
        const found = connectFailureOf(inner);
        if (found) return found;
      }
    }
    current = current.cause;
  }
  return undefined;
}

/** Server hints ("retry after N ms") travel beside the error, so LlmError's shape stays the lead's. */
const retryHints = new WeakMap<LlmError, number>();

export function attachRetryAfter(error: LlmError, ms: number | undefined): LlmError {
  if (ms !== undefined && Number.isFinite(ms) && ms >= 0) retryHints.set(error, ms);
  return error;
}

export function retryAfterOf(error: LlmError): number | undefined {
  return retryHints.get(error);
}
