/**
 * One reading, start to finish, as the reader's worker runs it: a document's bytes → text in its
 * charset → main content (or flat text for pathological markup) → the passages within budget. Plain
 * synchronous CPU work on data that crosses a thread boundary (bytes or strings in, strings out), so
 * it runs the same in the worker and in tests. Decoding happens here, in the worker, not on the main
 * thread: a hundred result pages arriving at once cost the main thread seconds of decoding (and the
 * copy of each decoded string into the worker) when it was done there.
 */
import { htmlToText } from '../tools/html-to-text.js';
import { stripControlChars } from '../tools/untrusted-text.js';
import { decodeDocument } from './charset.js';
import { type ExtractedArticle, extractArticle, TooDeepError } from './extract-article.js';
import {
  isPathological,
  MAX_OPEN_ELEMENTS,
  markupShape,
  readInPart,
  withinCapsByCount,
} from './markup-shape.js';
import { type PassageOptions, type PassageSelection, selectPassages } from './passages.js';

export type ReadJob = PassageOptions &
  (
    | {
        /** A fetched document as it arrived: a web page or text (JSON, XML, CSV, plain text). */
        kind: 'document';
        type: 'html' | 'text';
        body: Uint8Array;
        /** As the server sent it ('' when it sent none): its charset decides the decoding. */
        contentType: string;
        url: string;
      }
    | { kind: 'blocks'; blocks: string[] }
  );

export interface ReadJobResult {
  title?: string;
  site?: string;
  byline?: string;
  published?: string;
  /**
   * article: Readability; json-ld: the page's articleBody; page: cleaned page; dense: the densest
   * block of prose; structured: one of those with the page's structured data (recipe, FAQ …) added;
   * shown: the part of the page that shows that data; flat: markup too deep for a DOM.
   */
  method: ExtractedArticle['method'] | 'flat' | 'text';
  selection: PassageSelection;
  /** Only the first part of the page was read (too big to read whole). */
  cut?: boolean;
}

export async function runReadJob(job: ReadJob): Promise<ReadJobResult> {
  const options: PassageOptions = {
    maxChars: job.maxChars,
    ...(job.focus ? { focus: job.focus } : {}),
    ...(job.part !== undefined ? { part: job.part } : {}),
    ...(job.partChars !== undefined ? { partChars: job.partChars } : {}),
    ...(job.kind === 'document' && job.type === 'html' ? { pageUrl: job.url } : {}),
  };
  if (job.kind === 'blocks') return { method: 'text', selection: selectPassages(job.blocks, options) };
  const { text } = decodeDocument(job.body, job.contentType);
  if (job.type === 'text') {
    // Control bytes go before the text is split (the main thread strips what comes back again).
    return { method: 'text', selection: selectPassages(stripControlChars(text).split(/\n\s*\n/), options) };
  }
  return readHtml(text, job.url, options);
}

/** A decoded web page: its main content, or its text where the markup is too big or too deep. */
async function readHtml(html: string, url: string, options: PassageOptions): Promise<ReadJobResult> {
  if (withinCapsByCount(html)) {
    // The counts of '<' and '&' already bound the page; only its depth is measured, on the tree.
    try {
      return articleResult(extractArticle(html, url, { maxDepth: MAX_OPEN_ELEMENTS }), options);
    } catch (err) {
      if (!(err instanceof TooDeepError)) throw err;
      return flatResult(html, options);
    }
  }
  const shape = markupShape(html);
  const partEnd = readInPart(shape);
  if (partEnd !== undefined) {
    // An ordinary page too big to read whole: its first part, read as a page, and said so.
    return { ...articleResult(extractArticle(html.slice(0, partEnd), url), options), cut: true };
  }
  if (isPathological(shape)) return flatResult(html, options);
  return articleResult(extractArticle(html, url), options);
}

function articleResult(article: ExtractedArticle, options: PassageOptions): ReadJobResult {
  const { blocks, method, ...metadata } = article;
  return { ...metadata, method, selection: selectPassages(blocks, options) };
}

/**
 * No DOM for this page: the linear, tag-stripping reader gives its text. As much is collected for a
 * short read as for a call with `part`, so both count the same parts.
 */
async function flatResult(html: string, options: PassageOptions): Promise<ReadJobResult> {
  const budget = Math.max(options.maxChars, options.partChars ?? 0);
  const flat = await htmlToText(html, {
    maxChars: Number.isFinite(budget) ? budget * 4 : 4_000_000,
    // The pool bounds this thread's CPU time; a wall-clock budget here would refuse ordinary
    // pages on a busy machine.
    budgetMs: Number.POSITIVE_INFINITY,
  });
  // A tag cut off at the end of the download reads as a stray '<': lines with no word are dropped.
  const blocks = flat.text.split(/\n+/).filter((line) => /[\p{L}\p{N}]/u.test(line));
  return {
    ...(flat.title ? { title: flat.title } : {}),
    ...(flat.cut ? { cut: true } : {}),
    method: 'flat',
    selection: selectPassages(blocks, options),
  };
}
