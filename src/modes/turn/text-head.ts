/**
 * The start of a text within a token budget, cut where a paragraph, else a line, else a sentence
 * ends: what a page or a tool output keeps when it is shortened to fit the context window.
 */
import type { TextTokenCounter } from '../../llm/cached-token-counter.js';

/** Less text than this is not worth keeping: the result is cut to its note alone. */
export const MIN_KEPT_TOKENS = 40;

/** Finer and finer places to cut: after a paragraph, after a line, after a sentence. */
const BOUNDARIES = [/(?<=\n\n)/, /(?<=\n)/, /(?<=[.!?。！？；])/u];

/**
 * The longest start of `text` within `maxTokens` (none under MIN_KEPT_TOKENS), without the white
 * space it ends with.
 */
export function textHead(text: string, maxTokens: number, count: TextTokenCounter): string {
  return maxTokens < MIN_KEPT_TOKENS ? '' : headWithin(text, maxTokens, count, 0).trimEnd();
}

/**
 * The longest start of `text` within `maxTokens`, cut at the coarsest boundary that leaves some. The
 * pieces are counted, not the whole (whose count is about their sum): each text is tokenised once.
 */
function headWithin(text: string, maxTokens: number, count: TextTokenCounter, level: number): string {
  const boundary = BOUNDARIES[level];
  if (!boundary) return cutByShare(text, maxTokens, count);
  const pieces = text.split(boundary);
  let kept = '';
  let used = 0;
  for (const piece of pieces) {
    const tokens = count(piece);
    if (used + tokens > maxTokens) {
      // Nothing fits whole at this boundary: cut the first piece at a finer one.
      return kept || headWithin(piece, maxTokens, count, level + 1);
    }
    kept += piece;
    used += tokens;
  }
  return kept;
}

/** A text with no boundary left (one very long sentence): its share of characters, shrunk until it fits. */
function cutByShare(text: string, maxTokens: number, count: TextTokenCounter): string {
  let end = Math.floor((text.length * maxTokens) / Math.max(1, count(text)));
  let head = text.slice(0, end);
  while (end > 0 && count(head) > maxTokens) {
    end = Math.floor(end * 0.9);
    head = text.slice(0, end);
  }
  // Never half a surrogate pair: an unpaired one is not valid in a JSON body (strict-json.ts).
  return /[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head;
}
