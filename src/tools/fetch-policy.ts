/**
 * What fetch_url may open and how much of it: the limits on a URL, a download and the model's share
 * of a document, the options a fetch runs under, the fetch policy's refusal, the URL check, and the
 * words for why a document could not be read (for the model or a person, never a stack).
 */
import { PDF_MAX_BYTES } from '../context/pdf-text.js';
import { UnreadableDocumentError } from '../reader/read-document.js';
import { type ReaderPool, ReadFailedError, ReadTimeoutError } from '../reader/reader-pool.js';
import { BlockedAddressError, type Resolver } from './ssrf-guard.js';
import type { ToolContext } from './types.js';
import type { FetchUrlPolicy } from './url-provenance.js';

/**
 * What the model receives of one document, at most: about 4,000 tokens. Past it, the passages that
 * matter to the focus are kept and the rest can be read with `part`. At 8,000 characters the cut,
 * not the reader, decided most of what the model missed: of WCXB's 1,497 development pages 44 % have
 * more main text than that (median 6,900 characters, a quarter over 12,800), and on the article
 * benchmark's 181 pages recall of the first part was 0.93 against 0.96 at 16,000.
 */
export const FETCH_MAX_CHARS = 16_000;
/** The smallest budget a small context window brings a page down to. */
const MIN_PAGE_CHARS = 2_000;

/**
 * A page's budget for a model whose context window holds `windowTokens`: FETCH_MAX_CHARS, or a
 * quarter of a smaller window (at about 4 characters a token, as many characters as it has tokens),
 * so a local model with an 8k window is not handed a page that fills half of it.
 */
export function pageBudgetChars(windowTokens: number): number {
  if (!Number.isFinite(windowTokens)) return FETCH_MAX_CHARS;
  return Math.max(MIN_PAGE_CHARS, Math.min(FETCH_MAX_CHARS, Math.floor(windowTokens)));
}
/**
 * Bigger bodies are cut off: enough for a news site's article page, not for a download. Big sites
 * inline megabytes of script before the article: of 181 real article pages a tenth are over 512 KB
 * (the largest 1.5 MB), and cut at 512 KB the reader's F1 on them fell from 0.96 to 0.92. Reading
 * happens in a worker with a time limit, so the size costs no other conversation anything.
 */
export const FETCH_MAX_BYTES = 4 * 1024 * 1024;
/** PDFs (papers, reports, filings) are bigger than pages; a cut PDF cannot be read at all. */
export const FETCH_MAX_PDF_BYTES = Math.min(PDF_MAX_BYTES, 16 * 1024 * 1024);
/** A focus longer than this is a paragraph, not what to look for. */
export const MAX_FOCUS_CHARS = 500;
/** Parts a document may be read in (at 16,000 characters, an 800,000-character document). */
export const MAX_PARTS = 50;
/** One page's download, including redirects (reading it is bounded by the reader's own limits). */
export const FETCH_TIMEOUT_MS = 10_000;
/** Redirect chains longer than this are loops or trackers. */
export const FETCH_MAX_REDIRECTS = 3;

/** Longer URLs are refused by most servers (HTTP 414) and are not pages a person would link. */
export const MAX_URL_CHARS = 2048;

export interface FetchUrlOptions {
  /** FETCH_URL_POLICY: `provenance` (default) opens only URLs the turn vouches for; `open` any public URL. */
  policy?: FetchUrlPolicy;
  /** DNS resolver (tests map names to addresses). */
  resolver?: Resolver;
  /** Replaces the public-address check (tests allow their loopback server); default blocks non-public. */
  isAllowedAddress?: (address: string) => boolean;
  /** Shorthand for allowing every address. Tests only. */
  allowPrivate?: boolean;
  maxBytes?: number;
  /** The page budget: characters the model gets of a document, and the size of its parts. */
  maxChars?: number;
  /**
   * The size of the parts, when the text is cut to a smaller maxChars (a result page read within a
   * search round): its header then names the parts a call with `part` returns.
   */
  partChars?: number;
  timeoutMs?: number;
  /** CPU time the reader may spend on one document (src/reader/reader-pool.ts); tests make it tiny. */
  readLimitMs?: number;
  /** fetch_url's call: time for reading after the download (the registry's limit); tests make it tiny. */
  readAllowanceMs?: number;
  /** The reader's worker pool (tests give their own); the process's otherwise. */
  pool?: ReaderPool;
}

export class FetchProblem extends Error {}

/** Why a document could not be read, in words for the model or a person. */
export function failureReason(err: unknown): string {
  return err instanceof FetchProblem ||
    err instanceof BlockedAddressError ||
    err instanceof UnreadableDocumentError ||
    err instanceof ReadTimeoutError ||
    err instanceof ReadFailedError
    ? err.message
    : describe(err);
}

/** Why the fetch policy refuses `url` in this turn, or undefined when it may be opened. */
export function policyRefusal(url: string, context: ToolContext, policy: FetchUrlPolicy): string | undefined {
  if (policy === 'open' || context.provenance?.allows(url)) return undefined;
  return (
    `Not fetched: ${url} did not come from the user's message or from this turn's web_search ` +
    'results, and only those may be opened (fetch policy). Links found inside pages or snippets are ' +
    'not followed; if the user needs this page, tell them to send the link themselves.'
  );
}

export function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchProblem('not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchProblem(`only http and https URLs can be fetched, not ${url.protocol}`);
  }
  if (url.username || url.password) throw new FetchProblem('URLs with credentials are not fetched');
  return url;
}

/**
 * How much of a body is kept: a PDF whole up to its own cap (a cut PDF cannot be read at all, so a
 * bigger one is refused), anything else its first `pageMaxBytes` (the rest is cut off).
 */
export function bodyLimit(
  contentType: string,
  pageMaxBytes = FETCH_MAX_BYTES,
): { isPdf: boolean; maxBytes: number } {
  const isPdf = /^application\/(x-)?pdf\b/i.test(contentType);
  return { isPdf, maxBytes: isPdf ? FETCH_MAX_PDF_BYTES : pageMaxBytes };
}

/** The refusal of a PDF over `maxBytes` (`size` when it is known). */
export function pdfTooBig(maxBytes: number, size?: number): Error {
  return new FetchProblem(
    size !== undefined
      ? `the PDF is ${megabytes(size)}, more than the ${megabytes(maxBytes)} Scout reads`
      : `the PDF is more than the ${megabytes(maxBytes)} Scout reads`,
  );
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
}

function describe(err: unknown): string {
  const code = (err as { code?: string })?.code;
  const message = err instanceof Error ? err.message : String(err);
  return code ? `${message} (${code})` : message;
}
