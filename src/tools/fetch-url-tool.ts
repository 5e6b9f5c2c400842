/**
 * `fetch_url`: reads one public web page as text for the agent. http(s) only; the hostname is
 * resolved and every address checked (ssrf-guard.ts) before connecting, the socket is pinned to the
 * checked address, each redirect is checked again, and the body is capped in size and time.
 * By default only URLs from the user's message or this turn's search results are opened
 * (url-provenance.ts). What the model gets is the document as the reader reads it (src/reader): the
 * article's main content as Markdown with its title, site, byline and date, PDFs and text too, and
 * when it is longer than the budget, the passages that matter to the focus (default: the user's
 * question), with markers where paragraphs were skipped and parts to read on.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import * as z from '../schema/zod.js';
import { isAbortError } from '../errors.js';
import { truncateAtWord } from '../search/clean-results.js';
import { PDF_MAX_BYTES } from '../context/pdf-text.js';
import { type ReadResult, readForModel, UnreadableDocumentError } from '../reader/read-document.js';
import { ReadFailedError, ReadTimeoutError } from '../reader/reader-pool.js';
import { BlockedAddressError, type Resolver, resolvePublicAddress } from './ssrf-guard.js';
import type { Tool, ToolContext, ToolOutput } from './types.js';
import type { FetchUrlPolicy } from './url-provenance.js';
import { loadHttps } from '../http/lazy-https.js';
import { http } from '../http/node-http.js';

export const FETCH_URL_TOOL_NAME = 'fetch_url';
/**
 * What the model receives of one document, at most: about 2,000 tokens. Past it, the passages that
 * matter to the focus are kept and the rest can be read with `part`.
 */
export const FETCH_MAX_CHARS = 8_000;
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
/** Parts a document may be read in (at 8,000 characters, a 400,000-character document). */
export const MAX_PARTS = 50;
/** One page, including redirects. */
export const FETCH_TIMEOUT_MS = 10_000;
/** Redirect chains longer than this are loops or trackers. */
export const FETCH_MAX_REDIRECTS = 3;
const USER_AGENT = 'ScoutBot/0.1 (+fetch_url)';

/** Longer URLs are refused by most servers (HTTP 414) and are not pages a person would link. */
export const MAX_URL_CHARS = 2048;

const inputSchema = z.object({
  url: z
    .string()
    .check(
      z.trim(),
      z.minLength(1),
      z.maxLength(MAX_URL_CHARS),
      z.describe('The http(s) URL of a public web page or PDF to read'),
    ),
  focus: z.optional(
    z
      .string()
      .check(
        z.maxLength(MAX_FOCUS_CHARS),
        z.describe(
          "What you are looking for in the page (a question, names, a figure). When the page is long, the passages most relevant to it are returned. Default: the user's question.",
        ),
      ),
  ),
  part: z.optional(
    z
      .int()
      .check(
        z.minimum(1),
        z.maximum(MAX_PARTS),
        z.describe(
          'Read the page in order, this part of it (1 = the start). Use it to read on when a result says which parts exist.',
        ),
      ),
  ),
});
export type FetchUrlInput = z.infer<typeof inputSchema>;

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
  maxChars?: number;
  timeoutMs?: number;
  /** Time the reader may spend on one document (src/reader/reader-pool.ts); tests make it tiny. */
  readLimitMs?: number;
}

interface RawPage {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
}

class FetchProblem extends Error {}

export function createFetchUrlTool(options: FetchUrlOptions = {}): Tool<FetchUrlInput> {
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
  return {
    name: FETCH_URL_TOOL_NAME,
    description:
      'Read one public web page or PDF: its main content as Markdown with title, site and date. Long pages come as the passages most relevant to `focus` (or the question), with markers where paragraphs were skipped; `part` reads a page in order. Use it when a snippet is not enough: for specifics, numbers, quotes, or a URL the user gave.',
    inputSchema,
    // The registry's limit sits just above ours so our clearer timeout message wins.
    timeoutMs: timeoutMs + 1_000,
    async run({ url, focus, part }, context) {
      const refusal = policyRefusal(url, context, options.policy ?? 'provenance');
      if (refusal) return { isError: true, text: refusal };
      const named = focus?.trim();
      const chosen = named || context.question;
      return fetchForModel(
        url,
        {
          ...(chosen ? { focus: chosen, focusFrom: named ? 'focus' : 'question' } : {}),
          ...(part !== undefined ? { part } : {}),
        },
        // Result pages read within a search round get a smaller budget than a page asked for.
        context.maxPageChars
          ? { ...options, maxChars: Math.min(options.maxChars ?? FETCH_MAX_CHARS, context.maxPageChars) }
          : options,
        context.signal,
      );
    },
  };
}

/** What the model is given of a document besides its bytes: how much, and what to look for. */
export interface DocumentReadOptions {
  focus?: string;
  /** Who chose the focus: the caller named it, or it is the user's question (the header says which). */
  focusFrom?: 'focus' | 'question';
  part?: number;
}

/** A document as it arrived: downloaded by fetch_url, or read from disk by `--read`. */
export interface ArrivedDocument {
  body: Uint8Array;
  /** As a server would send it: the Content-Type header, or '' when there is none. */
  contentType: string;
  url: URL;
  /** Only the first part of the body was kept (FETCH_MAX_BYTES). */
  truncated: boolean;
}

/**
 * Fetches `url` (address guard, redirects, size and time caps) and returns what the model receives of
 * it, or an error output saying why it could not: fetch_url after its policy check, and `--read`.
 * Throws only when `cancel` aborts (the turn was stopped).
 */
export async function fetchForModel(
  url: string,
  read: DocumentReadOptions,
  options: FetchUrlOptions = {},
  cancel?: AbortSignal,
): Promise<ToolOutput> {
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = cancel ? AbortSignal.any([cancel, timeout]) : timeout;
  try {
    const { page, finalUrl } = await fetchFollowing(url, signal, options);
    const arrived = {
      body: page.body,
      contentType: String(page.headers['content-type'] ?? ''),
      url: finalUrl,
      truncated: page.truncated,
    };
    return await documentForModel(arrived, read, { ...options, signal });
  } catch (err) {
    if (cancel?.aborted) throw err;
    if (timeout.aborted || isAbortError(err)) {
      return {
        isError: true,
        text: `Could not fetch ${url}: no complete answer within ${timeoutMs} ms.`,
      };
    }
    return { isError: true, text: `Could not fetch ${url}: ${failureReason(err)}` };
  }
}

/**
 * The one path from a document's bytes to the model's text: the reader (read-document.ts) within the
 * budget, under the header pageOutput writes. Throws what the reader throws (failureReason words it).
 */
export async function documentForModel(
  doc: ArrivedDocument,
  read: DocumentReadOptions,
  options: Pick<FetchUrlOptions, 'maxChars' | 'readLimitMs'> & { signal?: AbortSignal } = {},
): Promise<ToolOutput> {
  const result = await readForModel(
    { body: doc.body, contentType: doc.contentType, url: doc.url.href },
    {
      maxChars: options.maxChars ?? FETCH_MAX_CHARS,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.readLimitMs !== undefined ? { limitMs: options.readLimitMs } : {}),
      ...(read.focus ? { focus: read.focus } : {}),
      ...(read.part !== undefined ? { part: read.part } : {}),
    },
  );
  return pageOutput(result, doc.url, doc.truncated, read.focusFrom ?? 'focus');
}

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
function policyRefusal(url: string, context: ToolContext, policy: FetchUrlPolicy): string | undefined {
  if (policy === 'open' || context.provenance?.allows(url)) return undefined;
  return (
    `Not fetched: ${url} did not come from the user's message or from this turn's web_search ` +
    'results, and only those may be opened (fetch policy). Links found inside pages or snippets are ' +
    'not followed; if the user needs this page, tell them to send the link themselves.'
  );
}

async function fetchFollowing(
  start: string,
  signal: AbortSignal,
  options: FetchUrlOptions,
): Promise<{ page: RawPage; finalUrl: URL }> {
  let url = parseHttpUrl(start);
  for (let redirects = 0; ; redirects++) {
    const page = await fetchOnce(url, signal, options);
    const location = page.headers.location;
    if (page.status >= 300 && page.status < 400 && location) {
      if (redirects >= FETCH_MAX_REDIRECTS)
        throw new FetchProblem(`more than ${FETCH_MAX_REDIRECTS} redirects`);
      url = parseHttpUrl(new URL(location, url).href);
      continue;
    }
    if (page.status >= 400) throw new FetchProblem(`the server answered HTTP ${page.status}`);
    return { page, finalUrl: url };
  }
}

function parseHttpUrl(raw: string): URL {
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

async function fetchOnce(url: URL, signal: AbortSignal, options: FetchUrlOptions): Promise<RawPage> {
  const isAllowed = options.allowPrivate ? () => true : options.isAllowedAddress;
  const target = await resolvePublicAddress(url.hostname, { resolver: options.resolver, isAllowed });
  // Pin the connection to the address we checked (no second DNS query, so no rebinding).
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        target,
      ]);
    } else {
      callback(null, target.address, target.family);
    }
  };
  const pageMaxBytes = options.maxBytes ?? FETCH_MAX_BYTES;
  const client = url.protocol === 'https:' ? await loadHttps() : http;
  return new Promise<RawPage>((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'GET',
        lookup,
        signal,
        headers: {
          'user-agent': USER_AGENT,
          accept: 'text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.9,*/*;q=0.5',
        },
      },
      (response) => {
        const { isPdf, maxBytes } = bodyLimit(String(response.headers['content-type'] ?? ''), pageMaxBytes);
        const declared = Number(response.headers['content-length'] ?? 0);
        if (isPdf && declared > maxBytes) {
          response.destroy();
          reject(pdfTooBig(maxBytes, declared));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const finish = () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
            truncated,
          });
        response.on('data', (chunk: Buffer) => {
          if (truncated) return;
          const room = maxBytes - size;
          chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
          size += Math.min(chunk.length, room);
          if (size >= maxBytes) {
            if (isPdf) {
              // A cut PDF has no cross-reference table: nothing of it could be read.
              response.destroy();
              reject(pdfTooBig(maxBytes));
              return;
            }
            truncated = true;
            finish();
            response.destroy();
          }
        });
        response.on('end', finish);
        response.on('error', (err) => (truncated ? undefined : reject(err)));
      },
    );
    request.on('error', reject);
    request.end();
  });
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

/** The document as the model reads it: a header of what it is and how much of it this is, then the text. */
function pageOutput(read: ReadResult, url: URL, bodyCut: boolean, focusFrom: 'focus' | 'question') {
  // A local file (`--read`) has no hostname: its name stands in.
  const title = read.title || url.hostname || decodeURIComponent(url.pathname.split('/').pop() ?? '');
  const { selection } = read;
  const about = [
    read.site ? `Site: ${read.site}` : '',
    read.byline ? `By: ${read.byline}` : '',
    read.published ? `Published: ${read.published}` : '',
    read.pages ? `PDF pages read: ${read.pages.read} of ${read.pages.total}` : '',
  ].filter(Boolean);
  const extent =
    selection.mode === 'focus'
      ? `Showing the passages most relevant to the ${focusFrom === 'focus' ? 'focus' : "user's question"}; ${selection.skipped} paragraphs skipped. The whole text has ${selection.parts} parts: call fetch_url with part=1…${selection.parts} to read it in order, or with another focus.`
      : selection.mode === 'part'
        ? `Part ${selection.part} of ${selection.parts}.${(selection.part ?? 1) < selection.parts ? ` Call fetch_url with part=${(selection.part ?? 1) + 1} to read on, or with a focus.` : ''}`
        : '';
  const header = [
    `Title: ${title}`,
    ...(about.length > 0 ? [about.join(' | ')] : []),
    `URL: ${url.href}${bodyCut ? ' (only the first part of the page was downloaded)' : ''}`,
    ...(extent ? [extent] : []),
  ].join('\n');
  const text = selection.text.trim();
  return {
    text: `${header}\n\n${text || '(the page has no readable text)'}`,
    sources: [
      {
        title,
        url: url.href,
        snippet: truncateAtWord(text.replace(/\s+/g, ' '), 200),
        ...(read.site ? { site: read.site } : {}),
        ...(read.published ? { published: read.published } : {}),
      },
    ],
    isPage: true,
  };
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
}

function describe(err: unknown): string {
  const code = (err as { code?: string })?.code;
  const message = err instanceof Error ? err.message : String(err);
  return code ? `${message} (${code})` : message;
}
