/**
 * One page the models read, shortened to a token budget: its `Source [n]` line and header (title,
 * site, date: what the answer cites) stay whole, then as much of its text from the start as the
 * budget holds, cut where a paragraph, else a line, else a sentence ends, then a note that says so.
 */
import type { TextTokenCounter } from '../../llm/cached-token-counter.js';
import type { Observation } from './observations.js';

/**
 * Who reads the shortened page: the function-call model can read on with fetch_url; the answer
 * model has no tools, so its note only says that the rest is left out.
 */
export type ShortenedFor = 'function-call' | 'answer';

/** Less text than this is not worth keeping: the page is cut to its header and the note. */
const MIN_KEPT_TOKENS = 40;

/** Finer and finer places to cut: after a paragraph, after a line, after a sentence. */
const BOUNDARIES = [/(?<=\n\n)/, /(?<=\n)/, /(?<=[.!?。！？；])/u];

/**
 * The note ends the page's text, in English like the rest of what the tools write for the models.
 * fetch_url's `part` reads a document in order (1 = the start), in parts of its page budget: the
 * truthful way to read on from a head, whichever way the page was first read (focus, part or a
 * result page's short read). `parts`, when fetch_url said, names exactly the parts there are.
 */
export function shortenedNote(n: number | undefined, reader: ShortenedFor, parts?: number): string {
  const which = n === undefined ? 'this page' : `source [${n}]`;
  const cut = `[Shortened to fit the context window: the rest of ${which} is left out.`;
  return reader === 'function-call' ? `${cut} To read more of it, ${readOn(parts)}]` : `${cut}]`;
}

/** How fetch_url reads the rest of a page of `parts` parts (unknown: in order, from part 1). */
function readOn(parts: number | undefined): string {
  if (parts === 1) return 'call fetch_url with its URL and part=1 (the whole page).';
  if (parts !== undefined) return `call fetch_url with its URL and part=1…${parts} (the page in order).`;
  return 'call fetch_url with its URL and part=1, 2, … (the page in order).';
}

/** `page` (an `isPage` observation, never shortened before) with at most `maxTextTokens` of its text. */
export function shortenPage(
  page: Observation,
  maxTextTokens: number,
  count: TextTokenCounter,
  reader: ShortenedFor,
): Observation {
  // toObservation and fetch_url's pageOutput write `Source [n]`, the header, a blank line, the text.
  const split = page.text.indexOf('\n\n');
  const header = split < 0 ? page.text : page.text.slice(0, split);
  const text = split < 0 ? '' : page.text.slice(split + 2);
  const kept = maxTextTokens < MIN_KEPT_TOKENS ? '' : headWithin(text, maxTextTokens, count, 0).trimEnd();
  const note = shortenedNote(page.sources[0]?.n, reader, page.parts);
  return { ...page, text: [header, kept, note].filter((part) => part !== '').join('\n\n') };
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
