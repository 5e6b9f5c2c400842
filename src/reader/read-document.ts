/**
 * A fetched document (its bytes, Content-Type and URL) as what the model reads: HTML through the
 * article reader (in a worker, reader-pool.ts), PDFs through the PDF reader used for attachments
 * (same limits and memory rules), plain text, JSON and XML as they are — each decoded in the charset
 * it declares, then cut to the budget by relevance to the focus (passages.ts).
 */
import { describePdfFailure, extractPdfText, looksLikePdf } from '../context/pdf-text.js';
import { stripControlChars } from '../tools/untrusted-text.js';
import type { PassageSelection } from './passages.js';
import type { ReadJob, ReadJobResult } from './read-job.js';
import { type ReaderPool, readerPool } from './reader-pool.js';

export type DocumentKind = 'html' | 'pdf' | 'text';

export interface ReadInput {
  body: Uint8Array;
  /** As the server sent it (`text/html; charset=shift_jis`), or '' when it sent none. */
  contentType: string;
  /** Where the document came from: the base of its relative links, its title of last resort. */
  url: string;
}

export interface ReadOptions {
  /** What the agent looks for: the passages most relevant to it are kept when the text is long. */
  focus?: string;
  /** 1-based part to read in order. */
  part?: number;
  /** Characters the model receives at most; Infinity for the whole text. */
  maxChars: number;
  /** The size of the parts `part` reads and the result counts, when not maxChars (passages.ts). */
  partChars?: number;
  signal?: AbortSignal;
  pool?: ReaderPool;
  /** Time the reader's worker may spend on the document (reader-pool.ts's default otherwise). */
  limitMs?: number;
  /**
   * Called when the document waits for a reader — the pool's worker, or a PDF reader's slot; what it
   * returns is called when the wait ends. fetch_url holds its call's time limit across those waits:
   * a page waiting for a reader behind other pages is not the fetch being slow.
   */
  whileQueued?: () => () => void;
}

export interface ReadResult {
  kind: DocumentKind;
  title?: string;
  site?: string;
  byline?: string;
  published?: string;
  method: ReadJobResult['method'] | 'pdf';
  selection: PassageSelection;
  /** PDFs: pages read and pages in the file, when some were left unread. */
  pages?: { read: number; total: number };
  /** Only the first part of the page was read: the whole is too big for the reader. */
  cut?: boolean;
}

/** The document cannot be read at all; the message says why, for the model or the user. */
export class UnreadableDocumentError extends Error {}

/** Text kinds read as they are. */
const TEXT_TYPE = /^text\/|[/+](json|xml|javascript|ecmascript|csv|markdown|x-yaml|yaml)\b/;

export function documentKind(body: Uint8Array, contentType: string): DocumentKind | undefined {
  const type = contentType.toLowerCase().split(';')[0]?.trim() ?? '';
  if (type === 'application/pdf' || type === 'application/x-pdf') return 'pdf';
  if (type.includes('html')) return 'html';
  if (
    (type === '' || type === 'application/octet-stream' || type === 'binary/octet-stream') &&
    looksLikePdf(body)
  )
    return 'pdf';
  if (type === '')
    return /^\s*</.test(Buffer.from(body.subarray(0, 256)).toString('latin1')) ? 'html' : 'text';
  if (TEXT_TYPE.test(type)) return 'text';
  return undefined;
}

export async function readForModel(input: ReadInput, options: ReadOptions): Promise<ReadResult> {
  const kind = documentKind(input.body, input.contentType);
  if (!kind) {
    throw new UnreadableDocumentError(
      `unsupported content type ${input.contentType.split(';')[0] || 'unknown'} (web pages, PDFs and text only)`,
    );
  }
  const pool = options.pool ?? readerPool();
  const passageOptions = {
    maxChars: options.maxChars,
    ...(options.focus ? { focus: options.focus } : {}),
    ...(options.part !== undefined ? { part: options.part } : {}),
    ...(options.partChars !== undefined ? { partChars: options.partChars } : {}),
  };
  const run = async (job: ReadJob) => {
    let queued = options.whileQueued?.();
    const taken = () => {
      queued?.();
      queued = undefined;
    };
    try {
      return await pool.run(job, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.limitMs !== undefined ? { limitMs: options.limitMs } : {}),
        onStart: taken,
      });
    } finally {
      taken();
    }
  };
  if (kind === 'pdf') {
    const pdf = await extractPdfText(input.body, options.signal, undefined, options.whileQueued);
    if (!pdf.ok) throw new UnreadableDocumentError(describePdfFailure(pdf.reason));
    const result = await run({
      kind: 'blocks',
      blocks: pdfBlocks(stripControlChars(pdf.text)),
      ...passageOptions,
    });
    return {
      ...cleanMetadata(result),
      kind,
      title: pdf.title ? stripControlChars(pdf.title) : fileTitle(input.url),
      ...(pdf.author ? { byline: stripControlChars(pdf.author) } : {}),
      method: 'pdf',
      ...(pdf.pagesRead < pdf.pages ? { pages: { read: pdf.pagesRead, total: pdf.pages } } : {}),
    };
  }
  // Decoded in the worker, with the reading (read-job.ts). Control bytes are stripped from everything
  // the reader returns (cleanMetadata), entities it decoded included.
  const result = await run({
    kind: 'document',
    type: kind,
    body: input.body,
    contentType: input.contentType,
    url: input.url,
    ...passageOptions,
  });
  return { ...cleanMetadata(result), kind, ...(kind === 'text' ? { title: fileTitle(input.url) } : {}) };
}

/** The whole document as Markdown, with its metadata (the corpus test and `--read` with no budget). */
export async function readDocument(
  input: ReadInput,
  options: { signal?: AbortSignal; pool?: ReaderPool } = {},
): Promise<{
  title?: string;
  site?: string;
  byline?: string;
  published?: string;
  markdown: string;
  kind: DocumentKind;
}> {
  const {
    selection,
    method: _method,
    pages: _pages,
    cut: _cut,
    ...rest
  } = await readForModel(input, {
    ...options,
    maxChars: Number.POSITIVE_INFINITY,
  });
  return { ...rest, markdown: selection.text };
}

/** Entities decode to control bytes only inside the reader: strip them from everything it returns. */
function cleanMetadata(result: ReadJobResult): ReadJobResult {
  const { title, site, byline, published } = result;
  return {
    ...result,
    ...(title ? { title: stripControlChars(title) } : {}),
    ...(site ? { site: stripControlChars(site) } : {}),
    ...(byline ? { byline: stripControlChars(byline) } : {}),
    ...(published ? { published: stripControlChars(published) } : {}),
    selection: { ...result.selection, text: stripControlChars(result.selection.text) },
  };
}

/**
 * A PDF's text as paragraphs: pages are separated by blank lines; inside a page, a line that ends a
 * sentence and is clearly shorter than the page's lines ends a paragraph; words hyphenated across
 * lines are joined.
 */
export function pdfBlocks(text: string): string[] {
  const blocks: string[] = [];
  for (const page of text.split(/\n\s*\n/)) {
    const lines = page
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
    const typical = Math.max(...lines.map((l) => l.length), 0);
    let paragraph = '';
    for (const line of lines) {
      paragraph =
        paragraph.endsWith('-') && /^\p{Ll}/u.test(line)
          ? paragraph.slice(0, -1) + line
          : paragraph
            ? `${paragraph} ${line}`
            : line;
      if (/[.!?:。！？"”)]$/.test(line) && line.length < typical * 0.8) {
        blocks.push(paragraph);
        paragraph = '';
      }
    }
    if (paragraph) blocks.push(paragraph);
  }
  return blocks;
}

/** The last path segment of a URL or file name, for documents that carry no title. */
function fileTitle(url: string): string {
  try {
    const path = new URL(url).pathname;
    const last = decodeURIComponent(path.split('/').filter(Boolean).pop() ?? '');
    return last || new URL(url).hostname;
  } catch {
    return url.split(/[\\/]/).pop() ?? url;
  }
}
