import { countMessageTokens } from '../llm/tokens.js';
import type { ChatMessage } from '../llm/types.js';

export interface HistoryWindow {
  messages: ChatMessage[];
  /** True when older turns were left out. */
  trimmed: boolean;
}

/**
 * Keeps the newest turns that fit the context window, dropping the oldest first. A turn (user
 * message and the replies after it) is dropped whole so the model never sees an answer without
 * its question.
 */
export function fitHistory(
  history: ChatMessage[],
  question: string,
  options: { contextWindow: number; reserveTokens: number; count?: (messages: ChatMessage[]) => number },
): HistoryWindow {
  const count = options.count ?? countMessageTokens;
  const budget = options.contextWindow - options.reserveTokens - count([{ role: 'user', content: question }]);
  let start = 0;
  while (start < history.length && count(history.slice(start)) > budget) {
    start += 1;
    while (start < history.length && history[start]?.role !== 'user') start += 1;
  }
  return { messages: history.slice(start), trimmed: start > 0 };
}
