/**
 * The one way a turn's tool results are brought within the context window, for the function-call
 * conversation (agent/tool-results-window.ts) and the answer prompt (answer-observations.ts): pages
 * are shortened, oldest first, each as far as needed before the next is touched, so the newest
 * pages stay whole unless nothing older is left. Only then are other long tool outputs (an MCP
 * tool's text) shortened, oldest first the same way: what is cut from a page fetch_url reads again
 * with `part`, what is cut from another tool's output cannot be asked for again. Search result
 * lists are never touched: their numbered titles and URLs are what citations point at, and they are
 * small; nor are short outputs (a date, a sum), which are what their call was for and free little.
 */
import type { TextTokenCounter } from '../../llm/cached-token-counter.js';
import { delimit, type Observation } from './observations.js';
import { shortenOutput } from './shorten-output.js';
import { type ShortenedFor, shortenPage } from './shorten-page.js';

/** A tool output (not a page or result list) shorter than this is left whole. */
const LONG_OUTPUT_TOKENS = 500;
/**
 * Shortening rounds in one fit, at most: a round frees what the counts say, and the counts of the
 * pieces a text is cut into add up to a little more or less than the text they make.
 */
const FIT_ATTEMPTS = 3;

/** A tool result as gathered, and as the model is sent it now. */
export interface PageSlot {
  /** As read: a result is always shortened from it, so notes never pile up and a later fit can keep more. */
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
   * Shortens `slots` (shortenOldest) until `overBy` — the tokens a request built from their current
   * observations is over its room — is no longer positive, or nothing more can be freed; returns the
   * last `overBy` (0 or less: it fits).
   */
  fit(slots: readonly PageSlot[], overBy: () => number): number {
    let over = overBy();
    for (let attempt = 0; attempt < FIT_ATTEMPTS && over > 0; attempt++) {
      const left = this.shortenOldest(slots, over);
      over = overBy();
      if (left > 0) break;
    }
    return over;
  }

  /**
   * Frees `excess` tokens by shortening the pages among `slots` (in the order they were gathered),
   * then the long outputs of other tools, updating each slot's `current`. Returns the tokens still
   * to free: more than 0 when every one of them is down to its header (if any) and the note.
   */
  shortenOldest(slots: readonly PageSlot[], excess: number): number {
    const pages = slots.filter((slot) => slot.original.isPage);
    const left = this.shortenEach(pages, excess, (page, maxTextTokens) =>
      shortenPage(page, maxTextTokens, this.count, this.reader),
    );
    if (left <= 0) return 0;
    const outputs = slots.filter((slot) => this.isLongOutput(slot.original));
    return this.shortenEach(outputs, left, (output, maxTextTokens) =>
      shortenOutput(output, maxTextTokens, this.count),
    );
  }

  /** Not a page, not a result list (sources the answer cites), and long enough to be worth cutting. */
  private isLongOutput(observation: Observation): boolean {
    return (
      !observation.isPage &&
      observation.sources.length === 0 &&
      this.tokens(observation) >= LONG_OUTPUT_TOKENS
    );
  }

  /** Shortens each slot in turn, as far as needed, until `excess` is freed; returns what is not. */
  private shortenEach(
    slots: readonly PageSlot[],
    excess: number,
    shorten: (original: Observation, maxTextTokens: number) => Observation,
  ): number {
    let left = excess;
    for (const slot of slots) {
      if (left <= 0) break;
      const now = this.tokens(slot.current);
      const least = this.tokens(shorten(slot.original, 0));
      if (now <= least) continue;
      // What the header, note and delimiters take is in `least`; the rest of the target is text.
      const next = shorten(slot.original, Math.max(0, now - left - least));
      const freed = now - this.tokens(next);
      if (freed <= 0) continue;
      slot.current = next;
      left -= freed;
    }
    return Math.max(0, left);
  }
}
