/**
 * A linear pre-check of HTML before a DOM is built from it. htmlparser2's Parser (inside linkedom)
 * searches its stack of open elements, which is quadratic on 100k nested tags, and Readability walks
 * the tree recursively; such pages are read as flat text instead (html-to-text.ts, linear). The
 * check is htmlparser2's bare Tokenizer, a single pass with counters, no stack. It runs without
 * decoding character references (decoding made the pass twice as slow, on every page): each `&` in
 * text is counted where a decoding tokenizer would have reported a reference (an upper bound).
 *
 * Text is counted too: linkedom builds a 512 KB page of `<` (half a million text runs) or of
 * entities (130k) for seconds, and Readability needs more than the reader's time limit on 25k
 * elements of ordinary markup. The 181 real article pages of the extraction benchmark have at most
 * 1,600 elements and 2,600 text runs, so the caps below leave real pages to the DOM.
 */
import { Tokenizer } from 'htmlparser2';
import { IgnoredTokens } from '../tools/tokenizer-callbacks.js';

/**
 * Real pages nest well under this (even with every `<p>` and `<li>` left unclosed: at most 247 open in
 * the 3,230 pages of the trafilatura, AEB and WCXB corpora). Readability judges every `<div>` by walking
 * all that is under it, so a page nested n deep costs it n² steps: 1,000 divs deep, each with its own
 * text, take it 0.7-1 s of CPU (2 vCPU, Node 20); 2,400 deep, four times that, past the reader's limit.
 */
export const MAX_OPEN_ELEMENTS = 1_000;
/**
 * Elements a page may have before it is read as flat text (a 512 KB page of `<b>` has 170k, a 512 KB
 * page of ordinary sections 25k, which Readability on linkedom reads in seconds).
 */
export const MAX_ELEMENTS = 20_000;
/** Text runs and character references (a 512 KB page of `<` has 524k, of `&amp;` 130k). */
export const MAX_TEXT_RUNS = 40_000;
/**
 * A page of ordinary markup (within the caps above) with more than this many characters of text
 * outside scripts and styles is read in part, up to where it passes them: Readability on 4 MB of
 * paragraphs takes 1.5-2 s of CPU, over the reader's limit in a worker; a million characters about
 * 0.2 s (2 vCPU, Node 20). Pages past the element caps are read flat, which is linear and cut at
 * what the model can be given. Reading the first 12,000 elements of a bigger page as a page was
 * tried and cost 0.4-1.9 s of CPU (Readability on many small sections), too close to the limit.
 */
export const PART_TEXT_CHARS = 1_000_000;

const VOID = new Set(
  'area base br col embed hr img input link meta param source track wbr basefont bgsound frame keygen'.split(
    ' ',
  ),
);

export interface MarkupShape {
  elements: number;
  /** Most elements open at once, counting unclosed ones (an upper bound of the tree's depth). */
  maxOpen: number;
  /** Text runs and character references the tokenizer reported (each becomes DOM work). */
  textRuns: number;
  /** Characters of text outside scripts and styles. */
  textChars: number;
  /** Where the page's text first passes PART_TEXT_CHARS (the start of the next tag), if it does. */
  partEnd?: number;
}

export function markupShape(html: string): MarkupShape {
  const counter = new ShapeCounter(html);
  const tokenizer = new Tokenizer({ xmlMode: false, decodeEntities: false }, counter);
  tokenizer.write(html);
  tokenizer.end();
  return {
    elements: counter.elements,
    maxOpen: counter.maxOpen,
    textRuns: counter.textRuns,
    textChars: counter.textChars,
    ...(counter.partEnd !== undefined ? { partEnd: counter.partEnd } : {}),
  };
}

/**
 * Whether the page's characters alone show it within the caps on elements and text runs and short
 * of PART_TEXT_CHARS, so the tokenizer's pass can be skipped: every element starts with a `<`, every
 * text run ends at one (or at the end), every character reference starts with a `&`, and there is
 * no more text than characters. Only the depth is left unknown: it is measured on the tree
 * (deeperThan) before anything walks it. Most article pages pass (a single native search per
 * character), and the pass they skip was a sixth of the reader's time on them.
 */
export function withinCapsByCount(html: string): boolean {
  if (html.length > PART_TEXT_CHARS) return false;
  const tags = occurrences(html, '<', MAX_ELEMENTS + 1);
  if (tags > MAX_ELEMENTS) return false;
  return tags + 1 + occurrences(html, '&', MAX_TEXT_RUNS) <= MAX_TEXT_RUNS;
}

/** How often `char` occurs in `text`, counting no further than `max`. */
function occurrences(text: string, char: string, max: number): number {
  let count = 0;
  for (let at = text.indexOf(char); at >= 0 && count < max; at = text.indexOf(char, at + 1)) count++;
  return count;
}

export function isPathological(shape: MarkupShape): boolean {
  return shape.maxOpen > MAX_OPEN_ELEMENTS || shape.elements > MAX_ELEMENTS || shape.textRuns > MAX_TEXT_RUNS;
}

/**
 * A page too big to read whole but built like a page a DOM can take (within the caps): its first
 * part, up to `partEnd`, is read as a page. Pathological pages are read flat instead.
 */
export function readInPart(shape: MarkupShape): number | undefined {
  return shape.partEnd === undefined || isPathological(shape) ? undefined : shape.partEnd;
}

/** Elements whose content is not text a reader shows. */
const RAW = new Set(['script', 'style', 'template', 'noscript', 'svg']);

class ShapeCounter extends IgnoredTokens {
  elements = 0;
  maxOpen = 0;
  textRuns = 0;
  textChars = 0;
  partEnd?: number;
  private open = 0;
  private name = '';
  private raw = 0;
  /** The next `&` at or after the text run being counted (-1: none left). */
  private amp: number;

  constructor(private readonly html: string) {
    super();
    this.amp = html.indexOf('&');
  }

  override onopentagname(start: number, end: number): void {
    this.name = this.html.slice(start, end).toLowerCase();
    this.elements++;
    if (RAW.has(this.name)) this.raw++;
  }
  /** `<x/>`: the tokenizer reports this instead of onopentagend, so nothing was opened. */
  override onselfclosingtag(): void {
    if (RAW.has(this.name) && this.raw > 0) this.raw--;
  }
  override onopentagend(): void {
    if (!VOID.has(this.name)) {
      this.open++;
      if (this.open > this.maxOpen) this.maxOpen = this.open;
    }
  }
  override onclosetag(start: number, end: number): void {
    if (this.open > 0) this.open--;
    if (this.raw > 0 && RAW.has(this.html.slice(start, end).toLowerCase())) this.raw--;
  }
  override ontext(start: number, end: number): void {
    this.textRuns++;
    // `&`s before this run were in tags or attributes; those in it are character references
    // (decoded, each splits the text linkedom builds) unless the run is a script's or a style's.
    for (; this.amp >= 0 && this.amp < end; this.amp = this.html.indexOf('&', this.amp + 1))
      if (this.amp >= start && this.raw === 0) this.textRuns++;
    if (this.raw > 0) return;
    this.textChars += end - start;
    // The part ends at the next tag: text is not cut mid-sentence by the DOM.
    if (this.partEnd === undefined && this.textChars > PART_TEXT_CHARS) {
      const next = this.html.indexOf('<', end);
      this.partEnd = next < 0 ? end : next;
    }
  }
}
