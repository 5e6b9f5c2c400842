import { CONTEXT_WARNING_RATIO, loadMessageCounter, maxMessageTokens } from '../llm/tokens.js';
import type { ChatMessage } from '../llm/types.js';

export interface HistoryWindow {
  messages: ChatMessage[];
  /** True when older turns were left out. */
  trimmed: boolean;
  /**
   * Estimated tokens of the kept history plus the question (for the context-window warning): exact
   * near the limits, an upper bound (UTF-8 bytes) when even that is far below them.
   */
  tokens: number;
}

/**
 * Keeps the newest turns that fit the context window, dropping the oldest first. A turn (user
 * message and the replies after it) is dropped whole so the model never sees an answer without
 * its question. Each message is tokenised once: this runs on every turn. When a cheap upper bound
 * already fits under both the budget and the context-window warning, nothing is tokenised at all
 * (the usual case, and the tokenizer is costly when cold, and loaded only when first needed: see
 * `maxMessageTokens`).
 */
export async function fitHistory(
  history: ChatMessage[],
  question: string,
  options: { contextWindow: number; reserveTokens: number; count?: (messages: ChatMessage[]) => number },
): Promise<HistoryWindow> {
  if (!options.count) {
    const bound = upperBound(history, question);
    const limit = Math.min(
      options.contextWindow - options.reserveTokens,
      options.contextWindow * CONTEXT_WARNING_RATIO,
    );
    if (bound <= limit) return { messages: history, trimmed: false, tokens: bound };
  }
  const count = options.count ?? (await loadMessageCounter());
  const sizes = history.map((message) => count([message]));
  const questionTokens = count([{ role: 'user', content: question }]);
  const budget = options.contextWindow - options.reserveTokens - questionTokens;
  const { start, total } = newestTurnsWithin(history, sizes, budget);
  return { messages: history.slice(start), trimmed: start > 0, tokens: total + questionTokens };
}

/**
 * Where the newest whole turns of `history` begin whose `sizes` (one per message) add up to at most
 * `budget`, and their total: the oldest turn goes first, each with the replies after it.
 */
export function newestTurnsWithin(
  history: readonly ChatMessage[],
  sizes: readonly number[],
  budget: number,
): { start: number; total: number } {
  let total = sizes.reduce((sum, size) => sum + size, 0);
  let start = 0;
  const drop = () => {
    total -= sizes[start] ?? 0;
    start += 1;
  };
  while (start < history.length && total > budget) {
    drop();
    while (start < history.length && history[start]?.role !== 'user') drop();
  }
  return { start, total };
}

/** Counted the same way as below (each message on its own), so it bounds the exact figure. */
function upperBound(history: ChatMessage[], question: string): number {
  let total = maxMessageTokens([{ role: 'user', content: question }]);
  for (const message of history) total += maxMessageTokens([message]);
  return total;
}
