/**
 * `fetch_url`: reads one public web page as text for the agent. http(s) only; the hostname is
 * resolved and every address checked (ssrf-guard.ts) before connecting, the socket is pinned to the
 * checked address, each redirect is checked again, and the body is capped in size and time.
 * By default only URLs from the user's message or this turn's search results are opened
 * (url-provenance.ts). What the model gets is the document as the reader reads it (src/reader): the
 * article's main content as Markdown with its title, site, byline and date, PDFs and text too, and
 * when it is longer than the budget, the passages that matter to the focus (default: the user's
 * question), with markers where paragraphs were skipped and parts to read on.
 * The download is page-download.ts; the limits, the policy's refusal and the failure words fetch-policy.ts.
 */
import * as z from '../schema/zod.js';
import { isAbortError } from '../errors.js';
import { truncateAtWord } from '../search/clean-results.js';
import { type ReadOptions, type ReadResult, readForModel } from '../reader/read-document.js';
import {
  FETCH_MAX_CHARS,
  FETCH_TIMEOUT_MS,
  type FetchUrlOptions,
  failureReason,
  MAX_FOCUS_CHARS,
  MAX_PARTS,
  MAX_URL_CHARS,
  policyRefusal,
} from './fetch-policy.js';
import { fetchFollowing } from './page-download.js';
import type { Tool, ToolOutput } from './types.js';

export const FETCH_URL_TOOL_NAME = 'fetch_url';
/**
 * Wall-clock room for reading after the download. The time a page waits for a reader (behind other
 * pages on a busy pool) is not in it: the call's limit is held across that wait (pauseTimeLimit).
 */
const READ_ALLOWANCE_MS = 20_000;

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

export function createFetchUrlTool(options: FetchUrlOptions = {}): Tool<FetchUrlInput> {
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
  return {
    name: FETCH_URL_TOOL_NAME,
    description:
      'Read one public web page or PDF: its main content as Markdown under a line with title, site and date; links keep their text, their targets listed at the end as `[Ln]: url "text"`. Long pages come as the passages most relevant to `focus` (or the question), with markers where paragraphs were skipped; `part` reads a page in order. Use it when a snippet is not enough: for specifics, numbers, quotes, or a URL the user gave.',
    inputSchema,
    // The registry's limit sits above the download's and the reading's, so their clearer messages
    // win; reading is bounded by the reader's own CPU limit, this only by the wall clock, and not
    // while the page waits for a reader: the download's bound is the only one on the network, and a
    // page that arrived within it is read however many pages are ahead of it.
    timeoutMs: timeoutMs + (options.readAllowanceMs ?? READ_ALLOWANCE_MS),
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
        {
          ...options,
          // Result pages read within a search round get a smaller budget than a page asked for,
          // and a shorter wait for the network; the parts their header names stay the page
          // budget's, the ones a call with `part` returns.
          ...shortRead(options.maxChars ?? FETCH_MAX_CHARS, context.maxPageChars),
          ...(context.maxFetchMs ? { timeoutMs: Math.min(timeoutMs, context.maxFetchMs) } : {}),
          ...(context.pauseTimeLimit ? { whileQueued: context.pauseTimeLimit } : {}),
        },
        context.signal,
      );
    },
  };
}

/** The budgets of a read cut to `maxPageChars`, less than the page budget; none otherwise. */
function shortRead(pageBudget: number, maxPageChars: number | undefined) {
  return maxPageChars !== undefined && maxPageChars < pageBudget
    ? { maxChars: maxPageChars, partChars: pageBudget }
    : {};
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
  /** The URL asked for, when redirects led elsewhere (the header names where the text is from). */
  requestedUrl?: string;
}

/**
 * Fetches `url` (address guard, redirects, size and time caps) and returns what the model receives of
 * it, or an error output saying why it could not: fetch_url after its policy check, and `--read`.
 * The time cap is the network's: what arrived in time is read, however long it waits for a reader
 * (the reader bounds its own work). Throws only when `cancel` aborts (the turn was stopped).
 */
export async function fetchForModel(
  url: string,
  read: DocumentReadOptions,
  options: FetchUrlOptions & Pick<ReadOptions, 'whileQueued'> = {},
  cancel?: AbortSignal,
): Promise<ToolOutput> {
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
  const deadline = networkDeadline(timeoutMs);
  const timeout = deadline.signal;
  const signal = cancel ? AbortSignal.any([cancel, timeout]) : timeout;
  let downloaded = false;
  try {
    const { page, finalUrl } = await fetchFollowing(url, signal, options).finally(deadline.clear);
    downloaded = true;
    const arrived = {
      body: page.body,
      contentType: String(page.headers['content-type'] ?? ''),
      url: finalUrl,
      truncated: page.truncated,
      requestedUrl: url,
    };
    return await documentForModel(arrived, read, { ...options, ...(cancel ? { signal: cancel } : {}) });
  } catch (err) {
    if (cancel?.aborted) throw err;
    if (!downloaded && (timeout.aborted || isAbortError(err))) {
      return {
        isError: true,
        text: `Could not fetch ${url}: no complete answer within ${timeoutMs} ms.`,
      };
    }
    return { isError: true, text: `Could not fetch ${url}: ${failureReason(err)}` };
  }
}

/**
 * The download's time bound, counted as the network's time: the time this thread spent waiting for
 * the network (its event loop idle), not the time it was busy with other work — many pages arriving at
 * once on a loaded machine keep it busy for seconds, and pages that arrived whole in that time would
 * otherwise fail only because nothing had read them yet. When it runs out, the bytes that had reached
 * this process are still read first (the abort waits for the loop's next look at its sockets). A
 * thread that is never idle still gives up at twice the bound.
 */
function networkDeadline(ms: number): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const from = performance.eventLoopUtilization();
  const latest = performance.now() + 2 * ms;
  let timer: NodeJS.Timeout | undefined;
  let look: NodeJS.Immediate | undefined;
  const check = () => {
    const left = Math.min(ms - performance.eventLoopUtilization(from).idle, latest - performance.now());
    if (left > 0) wait(left);
    else
      look = setImmediate(() =>
        controller.abort(new DOMException(`no complete answer within ${ms} ms`, 'TimeoutError')),
      );
  };
  const wait = (delay: number) => {
    timer = setTimeout(check, delay);
    // As AbortSignal.timeout's: the bound alone keeps no process alive.
    timer.unref();
  };
  wait(ms);
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      if (look) clearImmediate(look);
    },
  };
}

/**
 * The one path from a document's bytes to the model's text: the reader (read-document.ts) within the
 * budget, under the header pageOutput writes. Throws what the reader throws (failureReason words it).
 */
export async function documentForModel(
  doc: ArrivedDocument,
  read: DocumentReadOptions,
  options: Pick<FetchUrlOptions, 'maxChars' | 'partChars' | 'readLimitMs' | 'pool'> &
    Pick<ReadOptions, 'signal' | 'whileQueued'> = {},
): Promise<ToolOutput> {
  const result = await readForModel(
    { body: doc.body, contentType: doc.contentType, url: doc.url.href },
    {
      maxChars: options.maxChars ?? FETCH_MAX_CHARS,
      ...(options.partChars !== undefined ? { partChars: options.partChars } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.readLimitMs !== undefined ? { limitMs: options.readLimitMs } : {}),
      ...(options.pool ? { pool: options.pool } : {}),
      ...(options.whileQueued ? { whileQueued: options.whileQueued } : {}),
      ...(read.focus ? { focus: read.focus } : {}),
      ...(read.part !== undefined ? { part: read.part } : {}),
    },
  );
  return pageOutput(result, doc, read.focusFrom ?? 'focus');
}

/**
 * The document as the model reads it: one line of what it is (title · site · byline · date), a line
 * of how much of it this is when it is not all of it, then the text. The URL is not repeated: the
 * model named it in its call, and the source it cites carries it.
 */
export function pageOutput(read: ReadResult, doc: ArrivedDocument, focusFrom: 'focus' | 'question') {
  const { url, truncated: bodyCut } = doc;
  // A local file (`--read`) has no hostname: its name stands in.
  const title = read.title || url.hostname || decodeURIComponent(url.pathname.split('/').pop() ?? '');
  const { selection } = read;
  const about = [
    oneLine(title),
    read.site && !sameWords(read.site, title) ? oneLine(read.site) : '',
    read.byline ? `by ${oneLine(read.byline)}` : '',
    read.published ? shortDate(read.published) : '',
  ].filter(Boolean);
  const parts = selection.parts;
  const extent = [
    selection.mode === 'focus'
      ? `Passages most relevant to the ${focusFrom === 'focus' ? 'focus' : "user's question"}, ${selection.skipped} paragraphs skipped; ${readingOn(parts)}`
      : selection.mode === 'start'
        ? `The start of the page; ${readingOn(parts)}`
        : selection.mode === 'part'
          ? `Part ${selection.part} of ${parts}.${partOn(selection.part ?? 1, parts)}`
          : '',
    read.pages ? `PDF: ${read.pages.read} of ${read.pages.total} pages read.` : '',
    bodyCut || read.cut ? 'The page is too big to read whole: this is its first part.' : '',
    redirected(doc) ? `Redirected to ${url.href}.` : '',
  ].filter(Boolean);
  const header = [about.join(' · '), ...(extent.length > 0 ? [extent.join(' ')] : [])].join('\n');
  const text = selection.text.trim();
  return {
    text: `${header}\n\n${text || '(the page has no readable text)'}`,
    sources: [
      {
        title,
        url: url.href,
        snippet: truncateAtWord(snippetText(text), 200),
        ...(read.site ? { site: read.site } : {}),
        ...(read.published ? { published: read.published } : {}),
      },
    ],
    isPage: true,
    parts,
  };
}

/**
 * How `part` reads a document of `parts` parts from its start (a short read's may be one). `part`
 * goes up to MAX_PARTS: past that (a long PDF, or any long document at a small window's budget) the
 * header names the parts it can reach, never one the call would refuse.
 */
function readingOn(parts: number): string {
  if (parts === 1) return 'part=1 reads it whole.';
  if (parts > MAX_PARTS)
    return `part=1…${MAX_PARTS} reads the first ${MAX_PARTS} of its ${parts} parts in order.`;
  return `part=1…${parts} reads all ${parts} parts in order.`;
}

/** What follows part `part` of `parts`: the next part, or nothing (the last, or the last `part` reaches). */
function partOn(part: number, parts: number): string {
  if (part >= parts) return '';
  return part < MAX_PARTS ? ` part=${part + 1} reads on.` : ` part goes no further than ${MAX_PARTS}.`;
}

/** Redirects led to another page than the one asked for (not merely a normalised spelling of it). */
function redirected(doc: ArrivedDocument): boolean {
  if (!doc.requestedUrl) return false;
  try {
    const strip = (u: URL) => `${u.host}${u.pathname.replace(/\/$/, '')}${u.search}`;
    return strip(new URL(doc.requestedUrl)) !== strip(doc.url);
  } catch {
    return false;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The site is the title ("GOV.UK" · "GOV.UK"): said once. */
function sameWords(a: string, b: string): boolean {
  const words = (t: string) =>
    t
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
  return words(a) === words(b);
}

/** An ISO timestamp as its day (`2026-03-14T09:30:00+01:00` → `2026-03-14`); anything else as it is. */
function shortDate(published: string): string {
  return /^\d{4}-\d{2}-\d{2}T/.test(published) ? published.slice(0, 10) : oneLine(published);
}

/** The text as a snippet: the list of link targets left off. */
function snippetText(text: string): string {
  return text.replace(/\n\n\[L1\]: https?:\/\/[\s\S]*$/, '').replace(/\s+/g, ' ');
}
