/**
 * The one way a turn's tool results are brought within the context window, for the function-call
 * conversation (agent/tool-results-window.ts) and the answer prompt (answer-observations.ts): pages
 * are shortened, oldest first, each as far as needed before the next is touched, so the newest
 * pages stay whole unless nothing older is left. Search result lists are never touched: their
 * numbered titles and URLs are what citations point at, and they are small.
 */
import type { TextTokenCounter } from '../../llm/cached-token-counter.js';
import { delimit, type Observation } from './observations.js';
import { type ShortenedFor, shortenPage } from './shorten-page.js';

/** A tool result as gathered, and as the model is sent it now. */
export interface PageSlot {
  /** As read: a page is always shortened from it, so notes never pile up and a later fit can keep more. */
  readonly original: Observation;
  current: Observation;
}

export function pageSlot(observation: Observation): PageSlot {
  return { original: observation, current: observation };
}

export class PageFitter {
  private readonly sizes = new WeakMap<Observation, number>();

  constructor(
    private readonly count: TextTokenCounter,
    private readonly reader: ShortenedFor,
  ) {}

  /** Tokens of an observation as the models are sent it (delimited), counted once per observation. */
  tokens(observation: Observation): number {
    let tokens = this.sizes.get(observation);
    if (tokens === undefined) {
      tokens = this.count(delimit(observation));
      this.sizes.set(observation, tokens);
    }
    return tokens;
  }

  /**
   * Frees `excess` tokens by shortening the pages among `slots` (in the order they were gathered),
   * updating each slot's `current`. Returns the tokens still to free: more than 0 when every page is
   * down to its header and the note.
   */
  shortenOldest(slots: readonly PageSlot[], excess: number): number {
    let left = excess;
    for (const slot of slots) {
      if (left <= 0) break;
      if (!slot.original.isPage) continue;
      const now = this.tokens(slot.current);
      const least = this.tokens(this.shorten(slot.original, 0));
      if (now <= least) continue;
      // What the header, note and delimiters take is in `least`; the rest of the target is text.
      const next = this.shorten(slot.original, Math.max(0, now - left - least));
      const freed = now - this.tokens(next);
      if (freed <= 0) continue;
      slot.current = next;
      left -= freed;
    }
    return Math.max(0, left);
  }

  private shorten(page: Observation, maxTextTokens: number): Observation {
    return shortenPage(page, maxTextTokens, this.count, this.reader);
  }
}
