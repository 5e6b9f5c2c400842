/**
 * Readable text from a fetched HTML page (fetch_url feeds it to the model).
 *
 * Fetched pages are hostile input: the old regex version took 101 s on 512 KB of `<` and froze every
 * conversation meanwhile. Tokenising is htmlparser2's Tokenizer (maintained, a single linear pass,
 * entity decoding included). We use the bare tokenizer, not its Parser: the Parser keeps the open
 * elements in an array it `unshift`s and searches, which is quadratic on 100k nested tags. Our own
 * bookkeeping is O(1) per token (a counter per dropped element), so the whole pass stays linear.
 *
 * The body is fed in small chunks and the conversion yields to the event loop every SLICE_MS, so no
 * page blocks other conversations for long; past the CPU budget it gives up with PageTooComplexError.
 */
import { Tokenizer } from 'htmlparser2';
import { PageTooComplexError, truncateText } from './page-text.js';
import { IgnoredTokens } from './tokenizer-callbacks.js';

/** Elements whose content is never readable text. */
const DROP_ELEMENTS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'head',
  'canvas',
  'select',
  'object',
]);
/** Elements that start a new line when their markup is removed. */
const BLOCK_ELEMENTS = new Set(
  'p div br hr li ul ol h1 h2 h3 h4 h5 h6 tr table section article header footer nav aside main blockquote pre dd dt figcaption'.split(
    ' ',
  ),
);
const TITLE_MAX_CHARS = 300;
/** Characters handed to the tokenizer at once: small enough that one write takes well under a millisecond. */
const CHUNK_CHARS = 8_192;
/** Longest stretch of work before yielding to the event loop (the ceiling is 50 ms). */
export const HTML_SLICE_MS = 10;
/** Total time a page may take; 512 KB of hostile markup converts in well under a tenth of this. */
export const HTML_BUDGET_MS = 2_000;

export { PageTooComplexError, truncateText };

export interface HtmlToTextOptions {
  /** Stop collecting once the readable text is this long (the caller truncates anyway). */
  maxChars?: number;
  sliceMs?: number;
  budgetMs?: number;
  signal?: AbortSignal;
}

export interface PageText {
  title?: string;
  text: string;
  /** Collecting stopped at `maxChars` before the end of the page. */
  cut?: boolean;
}

/** Converts `html` to lines of readable text; never blocks the event loop for more than a slice. */
export async function htmlToText(html: string, options: HtmlToTextOptions = {}): Promise<PageText> {
  const sliceMs = options.sliceMs ?? HTML_SLICE_MS;
  const budgetMs = options.budgetMs ?? HTML_BUDGET_MS;
  // Collected text is whitespace-collapsed already; twice the limit leaves room for blank lines.
  const collectLimit = (options.maxChars ?? Number.POSITIVE_INFINITY) * 2 + 1_000;
  const collector = new TextCollector(html);
  const tokenizer = new Tokenizer({ xmlMode: false, decodeEntities: true }, collector);
  let spent = 0;
  let sliceStart = performance.now();
  let at = 0;
  for (; at < html.length && collector.length < collectLimit; at += CHUNK_CHARS) {
    tokenizer.write(html.slice(at, at + CHUNK_CHARS));
    const elapsed = performance.now() - sliceStart;
    if (spent + elapsed > budgetMs) throw new PageTooComplexError(budgetMs);
    if (elapsed >= sliceMs) {
      spent += elapsed;
      await new Promise<void>((resolve) => setImmediate(resolve));
      options.signal?.throwIfAborted();
      sliceStart = performance.now();
    }
  }
  tokenizer.end();
  return { title: collector.title(), text: collector.text(), ...(at < html.length ? { cut: true } : {}) };
}

/** Tokenizer callbacks: positions index into the whole page (the tokenizer counts across writes). */
class TextCollector extends IgnoredTokens {
  private readonly parts: string[] = [];
  private readonly titleParts: string[] = [];
  /** Open dropped elements by name; unbalanced markup only ever drops more, never less. */
  private readonly dropped = new Map<string, number>();
  private droppedTotal = 0;
  private inTitle = false;
  private titleLength = 0;
  private titleDone = false;
  private preDepth = 0;
  private openTag = '';
  length = 0;

  constructor(private readonly html: string) {
    super();
  }

  title(): string | undefined {
    const title = this.titleParts.join('').replace(/\s+/g, ' ').trim().slice(0, TITLE_MAX_CHARS);
    return title || undefined;
  }

  text(): string {
    return (
      this.parts
        .join('')
        .split('\n')
        // Inline tags vanish; "<b>bold</b> ." should still read "bold.".
        .map((line) =>
          line
            .replace(/[^\S\n]+/g, ' ')
            .replace(/ ([.,;:!?)\]])/g, '$1')
            .trim(),
        )
        .filter((line, i, lines) => line !== '' || (i > 0 && lines[i - 1] !== ''))
        .join('\n')
        .trim()
    );
  }

  private tagName(start: number, end: number): string {
    return this.html.slice(start, end).toLowerCase();
  }

  /** Whether text here is wanted at all (checked before slicing it out of the page). */
  private wanted(): boolean {
    if (this.inTitle && !this.titleDone) return this.titleLength < TITLE_MAX_CHARS;
    return this.droppedTotal === 0;
  }

  private push(text: string): void {
    if (this.inTitle && !this.titleDone) {
      this.titleParts.push(text);
      this.titleLength += text.length;
      return;
    }
    const readable = this.preDepth > 0 ? text : text.replace(/\s+/g, ' ');
    this.parts.push(readable);
    this.length += readable.length;
  }

  private newline(): void {
    if (this.droppedTotal > 0) return;
    // Two in a row make a paragraph break; more say nothing, and 100k nested blocks would fill the
    // length limit with line breaks before the text after them.
    const parts = this.parts;
    if (parts[parts.length - 1] === '\n' && parts[parts.length - 2] === '\n') return;
    parts.push('\n');
    this.length += 1;
  }

  override onopentagname(start: number, end: number): void {
    const name = this.tagName(start, end);
    this.openTag = name;
    if (name === 'title' && !this.titleDone) this.inTitle = true;
    if (name === 'pre') this.preDepth++;
    if (DROP_ELEMENTS.has(name)) {
      this.dropped.set(name, (this.dropped.get(name) ?? 0) + 1);
      this.droppedTotal++;
    }
    if (BLOCK_ELEMENTS.has(name)) this.newline();
  }

  override onselfclosingtag(): void {
    // `<svg/>`, `<iframe/>`: nothing inside to drop.
    this.closeElement(this.openTag);
  }

  override onclosetag(start: number, end: number): void {
    const name = this.tagName(start, end);
    if (BLOCK_ELEMENTS.has(name)) this.newline();
    this.closeElement(name);
  }

  private closeElement(name: string): void {
    if (name === 'title' && this.inTitle) {
      this.inTitle = false;
      this.titleDone = true;
    }
    if (name === 'pre' && this.preDepth > 0) this.preDepth--;
    const open = this.dropped.get(name);
    if (open) {
      this.dropped.set(name, open - 1);
      this.droppedTotal--;
    }
  }

  override ontext(start: number, end: number): void {
    if (this.wanted()) this.push(this.html.slice(start, end));
  }

  override ontextentity(codepoint: number): void {
    if (this.wanted()) this.push(String.fromCodePoint(codepoint));
  }
}
