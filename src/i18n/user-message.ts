import { LlmError, ScoutError, StoreError, isAbortError } from '../errors.js';
import { LockTimeoutError } from '../store/lock-service.js';
import type { Locale } from '../surface.js';
import { t } from './translate.js';

/**
 * The one place an error becomes what a person sees. Never includes a key, token or stack;
 * LLM failures suggest chat mode when they happen in agent or plan mode.
 */
export function toUserMessage(err: unknown, locale: Locale, options: { suggestChat?: boolean } = {}): string {
  const base = describe(err, locale);
  return options.suggestChat && err instanceof LlmError ? `${base} ${t(locale, 'error.suggest-chat')}` : base;
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
      case 'overloaded':
      case 'server':
      case 'network':
        return t(locale, 'error.overloaded');
      case 'timeout':
        return t(locale, 'error.timeout');
      case 'empty_response':
        return t(locale, 'error.empty');
      case 'bad_request':
      case 'reasoning_content':
        return t(locale, 'error.bad-request', {
          detail: err.details.status ? `HTTP ${err.details.status}` : err.code,
        });
      default:
        return t(locale, 'error.generic');
    }
  }
  if (err instanceof ScoutError && err.code === 'config') return err.message;
  return t(locale, 'error.generic');
}
