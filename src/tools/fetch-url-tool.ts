/**
 * `fetch_url`: reads one public web page as text for the agent. http(s) only; the hostname is
 * resolved and every address checked (ssrf-guard.ts) before connecting, the socket is pinned to the
 * checked address, each redirect is checked again, and the body is capped in size and time.
 * By default only URLs from the user's message or this turn's search results are opened
 * (url-provenance.ts); HTML is converted in time slices under a CPU budget (html-to-text.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import * as z from '../schema/zod.js';
import { isAbortError } from '../errors.js';
import { truncateAtWord } from '../search/clean-results.js';
import { PageTooComplexError, truncateText } from './page-text.js';
import { BlockedAddressError, type Resolver, resolvePublicAddress } from './ssrf-guard.js';
import type { Tool, ToolContext } from './types.js';
import { stripControlChars } from './untrusted-text.js';
import type { FetchUrlPolicy } from './url-provenance.js';
import { loadHttps } from '../http/lazy-https.js';
import { http } from '../http/node-http.js';

export const FETCH_URL_TOOL_NAME = 'fetch_url';
/** A page's text beyond this adds cost, not answers. */
export const FETCH_MAX_CHARS = 8_000;
/** Bigger bodies are cut off: enough for an article, not for a download. */
export const FETCH_MAX_BYTES = 512 * 1024;
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
      z.describe('The http(s) URL of a public web page to read'),
    ),
});
export type FetchUrlInput = z.infer<typeof inputSchema>;

export interface FetchUrlOptions {
  /** FETCH_URL_POLICY: `provenance` (default) opens only URLs the turn vouches for; `open` any public URL. */
  policy?: FetchUrlPolicy;
  /** CPU budget for turning one page into text (html-to-text.ts); tests make it tiny. */
  parseBudgetMs?: number;
  /** DNS resolver (tests map names to addresses). */
  resolver?: Resolver;
  /** Replaces the public-address check (tests allow their loopback server); default blocks non-public. */
  isAllowedAddress?: (address: string) => boolean;
  /** Shorthand for allowing every address. Tests only. */
  allowPrivate?: boolean;
  maxBytes?: number;
  maxChars?: number;
  timeoutMs?: number;
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
      'Read one public web page and return its text. Use it to read a search result in full when its snippet is not enough.',
    inputSchema,
    // The registry's limit sits just above ours so our clearer timeout message wins.
    timeoutMs: timeoutMs + 1_000,
    async run({ url }, context) {
      const refusal = policyRefusal(url, context, options.policy ?? 'provenance');
      if (refusal) return { isError: true, text: refusal };
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([context.signal, timeout]);
      try {
        const { page, finalUrl } = await fetchFollowing(url, signal, options);
        return await renderPage(page, finalUrl, {
          maxChars: options.maxChars ?? FETCH_MAX_CHARS,
          signal,
          ...(options.parseBudgetMs !== undefined ? { budgetMs: options.parseBudgetMs } : {}),
        });
      } catch (err) {
        if (context.signal.aborted) throw err;
        if (timeout.aborted || isAbortError(err)) {
          return {
            isError: true,
            text: `Could not fetch ${url}: no complete answer within ${timeoutMs} ms.`,
          };
        }
        const reason =
          err instanceof FetchProblem ||
          err instanceof BlockedAddressError ||
          err instanceof PageTooComplexError
            ? err.message
            : describe(err);
        return { isError: true, text: `Could not fetch ${url}: ${reason}` };
      }
    },
  };
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
  const maxBytes = options.maxBytes ?? FETCH_MAX_BYTES;
  const client = url.protocol === 'https:' ? await loadHttps() : http;
  return new Promise<RawPage>((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'GET',
        lookup,
        signal,
        headers: { 'user-agent': USER_AGENT, accept: 'text/html,text/plain;q=0.9,*/*;q=0.5' },
      },
      (response) => {
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

async function renderPage(
  page: RawPage,
  url: URL,
  options: { maxChars: number; signal: AbortSignal; budgetMs?: number },
) {
  const type = String(page.headers['content-type'] ?? '').toLowerCase();
  const isHtml = type.includes('html') || (type === '' && /^\s*</.test(page.body.subarray(0, 64).toString()));
  const isText = isHtml || type.startsWith('text/') || /json|xml|javascript/.test(type);
  if (!isText)
    throw new FetchProblem(`unsupported content type ${type || 'unknown'} (only web pages and text)`);
  // Control bytes go from every kind of text (text/plain too), before anything reads it.
  const raw = stripControlChars(decodeBody(page.body, type));
  const converted = isHtml
    ? // The HTML parser loads with the first page that needs it, not at start-up.
      await (await import('./html-to-text.js')).htmlToText(raw, {
        maxChars: options.maxChars,
        signal: options.signal,
        ...(options.budgetMs !== undefined ? { budgetMs: options.budgetMs } : {}),
      })
    : { text: raw.trim() };
  // Again after decoding: `&#27;` in HTML becomes a control byte only now.
  const title = (converted.title && stripControlChars(converted.title)) || url.hostname;
  const { text, truncated } = truncateText(stripControlChars(converted.text), options.maxChars);
  const note = page.truncated || truncated ? ' (truncated)' : '';
  return {
    text: `Title: ${title}\nURL: ${url.href}${note}\n\n${text || '(the page has no readable text)'}`,
    sources: [{ title, url: url.href, snippet: truncateAtWord(text.replace(/\s+/g, ' '), 200) }],
    isPage: true,
  };
}

function decodeBody(body: Buffer, contentType: string): string {
  const charset = /charset=([^;\s]+)/.exec(contentType)?.[1]?.replace(/"/g, '') ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function describe(err: unknown): string {
  const code = (err as { code?: string })?.code;
  const message = err instanceof Error ? err.message : String(err);
  return code ? `${message} (${code})` : message;
}
