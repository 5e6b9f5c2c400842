/**
 * The history the answer prompt carries, within its context window. The history was fitted at the
 * turn's start with room kept for the question and the output, not for what the tools would gather:
 * when the results still do not fit once every page is cut to its header (result lists are never
 * cut: citations point at them), the oldest turns are left out of this one request, whole, the
 * conversation's summary first. The conversation itself keeps them.
 */
import { newestTurnsWithin } from '../../core/history-window.js';
import { CachedTokenCounter } from '../../llm/cached-token-counter.js';
import { loadTextCounter, maxMessageTokens } from '../../llm/tokens.js';
import type { ChatMessage } from '../../llm/types.js';

/** The newest turns of `history` that fit a prompt of `room` tokens beside `rest` (the prompt without history). */
export async function historyWithin(
  history: readonly ChatMessage[],
  room: number,
  rest: readonly ChatMessage[],
): Promise<ChatMessage[]> {
  // The usual case is decided without the tokenizer: bytes bound tokens from above.
  if (history.length === 0 || maxMessageTokens([...rest, ...history]) <= room) return [...history];
  const counter = new CachedTokenCounter(await loadTextCounter());
  const sizes = history.map((message) => counter.message(message));
  return history.slice(newestTurnsWithin(history, sizes, room - counter.request(rest)).start);
}
