import { LlmError, type LlmErrorCode, ScoutError, StoreError, isAbortError } from '../errors.js';
import { LockTimeoutError } from '../store/lock-service.js';
import type { Locale } from './locale.js';
import { joinText, type Phrase, phrase } from './phrase.js';
import { say } from './say.js';

/** Failures chat mode would hit just the same: suggesting it would mislead. */
const NOT_HELPED_BY_CHAT: ReadonlySet<LlmErrorCode> = new Set([
  'auth',
  'insufficient_balance',
  'truncated',
  'refused',
  'context_too_long',
]);

/**
 * The one place an error becomes what a person sees, as a phrase (said by the renderer or the
 * adapter in the asker's locale). Never includes a key, token or stack; LLM failures suggest chat
 * mode when they happen in agent or plan mode.
 */
export function userMessage(err: unknown, options: { suggestChat?: boolean } = {}): Phrase {
  const base = describe(err);
  return options.suggestChat && err instanceof LlmError && !NOT_HELPED_BY_CHAT.has(err.code)
    ? joinText([base, phrase('error.suggest-chat')], ' ')
    : base;
}

/** `userMessage` said at once, for the adapters' own error paths (they know the asker's locale). */
export function toUserMessage(err: unknown, locale: Locale, options: { suggestChat?: boolean } = {}): string {
  return say(locale, userMessage(err, options));
}

/**
 * `userMessage` in English for the operator's console (`--check --probe`): start-up checks print
 * lines at once, to whoever runs Scout, with no asker and no locale of their own.
 */
export function operatorMessage(err: unknown): string {
  return say('en', userMessage(err));
}

function describe(err: unknown): Phrase {
  if (isAbortError(err)) return phrase('error.cancelled');
  // Waited the whole lock wait behind earlier turns: the store is fine, the conversation is busy.
  if (err instanceof LockTimeoutError) return phrase('error.busy');
  if (err instanceof StoreError) return phrase('error.store');
  if (err instanceof LlmError) {
    switch (err.code) {
      case 'auth':
        return phrase('error.auth');
      case 'insufficient_balance':
        return phrase('error.balance');
      case 'rate_limited':
        return phrase('error.rate-limited');
      case 'network':
        // The server had answered, then the stream broke: its URL and connection advice do not apply.
        if (err.details.streamCut) return phrase('error.stream-cut');
        if (err.details.endpoint && err.details.connectFailure)
          return phrase('error.unreachable', {
            endpoint: err.details.endpoint,
            cause: phrase(`connect.${err.details.connectFailure}`),
          });
        return phrase('error.network');
      case 'overloaded':
      case 'server':
        return phrase('error.overloaded');
      case 'timeout':
        return phrase('error.timeout');
      case 'empty_response':
        return phrase('error.empty');
      case 'truncated':
        return phrase(
          err.details.maxTokens ? 'error.truncated' : 'error.truncated-server',
          cutVariables(err),
        );
      case 'refused':
        return phrase('error.refused');
      case 'context_too_long':
        return phrase('error.context-too-long', { detail: providerDetail(err) });
      case 'bad_request':
      case 'reasoning_content':
        return phrase('error.bad-request', { detail: providerDetail(err) });
      default:
        return phrase('error.generic');
    }
  }
  if (err instanceof ScoutError && err.code === 'config') return joinText([err.message]);
  return phrase('error.generic');
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
