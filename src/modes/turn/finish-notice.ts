/**
 * What a turn says when the answer came but did not end on its own: cut at the token limit (the
 * partial text stays, with how to raise the limit) or stopped by the provider's safety system.
 */
import { type Phrase, phrase } from '../../i18n/phrase.js';
import { cutVariables } from '../../i18n/user-message.js';
import { sentMaxTokens } from '../../llm/model-config.js';
import type { LlmClient } from '../../llm/types.js';
import type { TurnEvent } from '../../render/events.js';
import { emitNotice } from './emit-notice.js';

/** The notice for a finish reason, or undefined when the answer ended normally. */
export function finishNoticeText(
  finishReason: string,
  llm: LlmClient,
  slot: 'tool' | 'answer',
): Phrase | undefined {
  if (finishReason === 'content_filter') return phrase('notice.answer-refused');
  if (finishReason !== 'length') return undefined;
  const { provider, model } = llm.config;
  // From the config, not the client: wrappers (metrics) pass the config through, nothing else.
  const maxTokens = sentMaxTokens(llm.config);
  // Without max_tokens in the request the limit was the server's own.
  if (!maxTokens) return phrase('notice.answer-cut-server');
  return phrase(
    'notice.answer-cut',
    cutVariables({ details: { provider, model, maxTokens, modelSlot: slot } }),
  );
}

/** Emits the notice for an answer that was cut or stopped; nothing for one that ended normally. */
export function emitFinishNotice(
  emit: (event: TurnEvent) => void,
  finishReason: string,
  llm: LlmClient,
  slot: 'tool' | 'answer',
): void {
  const text = finishNoticeText(finishReason, llm, slot);
  if (text) emitNotice(emit, 'notice-finish', text, 'warning');
}
