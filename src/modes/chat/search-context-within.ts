/**
 * Chat mode's search results within the context window. The history was fitted before the search
 * ran (turn-input.ts keeps room for the question, the output and a margin, not for results it cannot
 * know yet), and five web results and eight workspace messages in Chinese are several thousand
 * tokens: with a full history they pushed the request past LLM_CONTEXT_WINDOW and the provider
 * refused the whole turn. The last results go first (web results come before workspace messages,
 * each list best first), so the numbers of those kept stay 1…k and citations still point at them.
 */
import { CachedTokenCounter } from '../../llm/cached-token-counter.js';
import { loadTextCounter, maxMessageTokens } from '../../llm/tokens.js';
import type { ChatMessage } from '../../llm/types.js';
import type { Source } from '../../render/events.js';

/**
 * The longest head of `sources` whose request, built by `requestWith`, fits `room` tokens; none when
 * even the first does not. `requestWith([])` is the request without search results.
 */
export async function searchContextWithin(
  sources: readonly Source[],
  room: number,
  requestWith: (sources: readonly Source[]) => ChatMessage[],
): Promise<Source[]> {
  // The usual case is decided without the tokenizer: bytes bound tokens from above.
  if (sources.length === 0 || maxMessageTokens(requestWith(sources)) <= room) return [...sources];
  const counter = new CachedTokenCounter(await loadTextCounter());
  const tokens = (kept: readonly Source[]) => counter.request(requestWith(kept));
  // Fewer results never make the request longer: search for the longest head that fits.
  let fits = 0;
  let over = sources.length;
  while (over - fits > 1) {
    const middle = (fits + over) >> 1;
    if (tokens(sources.slice(0, middle)) <= room) fits = middle;
    else over = middle;
  }
  return sources.slice(0, fits);
}
