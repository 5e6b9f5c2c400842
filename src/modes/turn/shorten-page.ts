/**
 * One page the models read, shortened to a token budget: its `Source [n]` line and header (title,
 * site, date: what the answer cites) stay whole, then as much of its text from the start as the
 * budget holds, cut where a paragraph, else a line, else a sentence ends, then a note that says so.
 */
import type { TextTokenCounter } from '../../llm/cached-token-counter.js';
import type { Observation } from './observations.js';
import { MAX_PARTS } from '../../tools/fetch-policy.js';
import { textHead } from './text-head.js';

/**
 * Who reads the shortened page: the function-call model can read on with fetch_url; the answer
 * model has no tools, so its note only says that the rest is left out.
 */
export type ShortenedFor = 'function-call' | 'answer';

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
  if (parts !== undefined && parts > MAX_PARTS)
    return `call fetch_url with its URL and part=1…${MAX_PARTS} (the first ${MAX_PARTS} of its ${parts} parts, in order).`;
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
  const kept = textHead(text, maxTextTokens, count);
  const note = shortenedNote(page.sources[0]?.n, reader, page.parts);
  return { ...page, text: [header, kept, note].filter((part) => part !== '').join('\n\n') };
}
