/**
 * Turns an HTTP status (and the provider's message) into an `LlmError` with the right code. Both
 * SDK mappers (`map-openai-error.ts`, `map-anthropic-error.ts`) end here, so the policy of which
 * status means what lives in one place.
 */
import { LlmError, type LlmErrorCode } from '../errors.js';
import { redactSecrets } from './redact.js';

export interface FailureContext {
  provider: string;
  model: string;
  /** Name of the variable holding the key, for the auth message ("check DEEPSEEK_API_KEY"). */
  keyVariable?: string;
  /** Configured secrets, scrubbed from any provider message. */
  secrets?: ReadonlyArray<string | undefined>;
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

export function httpFailure(
  status: number,
  providerMessage: string | undefined,
  ctx: FailureContext,
): LlmError {
  const code = codeForStatus(status);
  const details = { provider: ctx.provider, model: ctx.model, status };
  const who = `${ctx.provider}/${ctx.model}`;
  if (code === 'auth') {
    // Never echo the provider's text here: auth messages are the ones that quote keys.
    const hint = ctx.keyVariable ? ` (check ${ctx.keyVariable})` : '';
    return new LlmError('auth', `${who}: authentication failed, HTTP ${status}${hint}`, details);
  }
  const clean = redactSecrets(providerMessage ?? '', ctx.secrets)
    .slice(0, MAX_PROVIDER_MESSAGE_CHARS)
    .trim();
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
    reasoning_content: 'reasoning_content rejected',
    empty_response: 'the model returned no output',
    cancelled: 'cancelled',
  };
  return new LlmError(code, `${who}: ${label[code]} (HTTP ${status})${suffix}`, details);
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
  return new LlmError(
    'network',
    `${ctx.provider}/${ctx.model}: network error${clean ? `: ${clean}` : ''}`,
    { provider: ctx.provider, model: ctx.model },
    { cause },
  );
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
