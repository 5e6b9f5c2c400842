import { LlmError, type LlmErrorCode, ScoutError, StoreError, isAbortError } from '../errors.js';
import { LockTimeoutError } from '../store/lock-service.js';
import type { Locale } from './locale.js';
import { t } from './translate.js';

/** Failures chat mode would hit just the same: suggesting it would mislead. */
const NOT_HELPED_BY_CHAT: ReadonlySet<LlmErrorCode> = new Set([
  'auth',
  'insufficient_balance',
  'truncated',
  'refused',
  'context_too_long',
]);

/**
 * The one place an error becomes what a person sees. Never includes a key, token or stack;
 * LLM failures suggest chat mode when they happen in agent or plan mode.
 */
export function toUserMessage(err: unknown, locale: Locale, options: { suggestChat?: boolean } = {}): string {
  const base = describe(err, locale);
  return options.suggestChat && err instanceof LlmError && !NOT_HELPED_BY_CHAT.has(err.code)
    ? `${base} ${t(locale, 'error.suggest-chat')}`
    : base;
}

function describe(err: unknown, locale: Locale): string {
  if (isAbortError(err)) return t(locale, 'error.cancelled');
  // Waited the whole lock wait behind earlier turns: the store is fine, the conversation is busy.
  if (err instanceof LockTimeoutError) return t(locale, 'error.busy');
  if (err instanceof StoreError) return t(locale, 'error.store');
  if (err instanceof LlmError) {
    switch (err.code) {
      case 'auth':
        return t(locale, 'error.auth');
      case 'insufficient_balance':
        return t(locale, 'error.balance');
      case 'rate_limited':
        return t(locale, 'error.rate-limited');
      case 'network':
        // The server had answered, then the stream broke: its URL and connection advice do not apply.
        if (err.details.streamCut) return t(locale, 'error.stream-cut');
        if (err.details.endpoint && err.details.connectFailure)
          return t(locale, 'error.unreachable', {
            endpoint: err.details.endpoint,
            cause: t(locale, `connect.${err.details.connectFailure}`),
          });
        return t(locale, 'error.network');
      case 'overloaded':
      case 'server':
        return t(locale, 'error.overloaded');
      case 'timeout':
        return t(locale, 'error.timeout');
      case 'empty_response':
        return t(locale, 'error.empty');
      case 'truncated':
        return t(
          locale,
          err.details.maxTokens ? 'error.truncated' : 'error.truncated-server',
          cutVariables(err),
        );
      case 'refused':
        return t(locale, 'error.refused');
      case 'context_too_long':
        return t(locale, 'error.context-too-long', { detail: providerDetail(err) });
      case 'bad_request':
      case 'reasoning_content':
        return t(locale, 'error.bad-request', { detail: providerDetail(err) });
      default:
        return t(locale, 'error.generic');
    }
  }
  if (err instanceof ScoutError && err.code === 'config') return err.message;
  return t(locale, 'error.generic');
}

/** "HTTP 400 tool_use_failed: the provider's own message" — what the provider said, as it said it. */
function providerDetail(err: LlmError): string {
  const { status, providerCode, providerMessage } = err.details;
  const head = [status ? `HTTP ${status}` : '', providerCode ?? ''].filter(Boolean).join(' ') || err.code;
  return providerMessage ? `${head}: ${providerMessage.slice(0, 300)}` : head;
}

/** Fills the "cut at max_tokens" hint: the limit, the /model slot and model, and a doubled limit to try. */
export function cutVariables(err: Pick<LlmError, 'details'>): Record<string, string | number> {
  const { maxTokens, provider, model, modelSlot } = err.details;
  return {
    maxTokens: maxTokens ?? '…',
    role: modelSlot ?? 'tool',
    model: provider && model ? `${provider}/${model}` : '…',
    suggest: maxTokens ? maxTokens * 2 : '…',
  };
}
