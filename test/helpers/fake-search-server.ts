/**
 * A loopback HTTP server that fakes the search APIs Scout talks to, so the real providers (global
 * fetch) run end to end in tests. One server serves all four:
 *
 * | provider   | request                                   | auth                                   |
 * |------------|-------------------------------------------|----------------------------------------|
 * | Tavily     | POST /search  {query, max_results}        | `Authorization: Bearer FAKE_TAVILY_KEY` |
 * | Brave      | GET /res/v1/web/search?q=…&count=…        | `X-Subscription-Token: FAKE_BRAVE_KEY`  |
 * | SearXNG    | GET /search?q=…&format=json               | none (403 when `searxngJsonDisabled`)   |
 * | DuckDuckGo | GET /html/?q=…                            | none (HTML result page)                 |
 *
 * Usage:
 * ```ts
 * const fake = await startFakeSearchServer();
 * fake.script('rust async', [{ title: 'Async book', url: 'https://rust-lang.github.io/async-book/', snippet: '…' }]);
 * const config = loadConfig({ DEEPSEEK_API_KEY: 'x', ...fake.env('tavily') });
 * // … run the code under test …
 * expect(fake.requests).toHaveLength(1);
 * expect(fake.requests[0]?.query).toBe('rust async');
 * await fake.close();
 * ```
 * Unscripted queries get `defaultResults(query, count)` (deterministic, distinct URLs per query).
 * `fake.latencyMs` delays every answer; `fake.hold = promise` holds every answer until it settles (a
 * test releases it on an event, e.g. once all its searches arrived); `fake.failWith = { status: 500 }` makes every call fail until
 * set back to null. Wrong or missing keys get 401, like the real APIs.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SearchProviderName, SearchResult } from '../../src/search/types.js';

export const FAKE_TAVILY_KEY = 'tvly-fake-test-key';
export const FAKE_BRAVE_KEY = 'brave-fake-test-key';

export interface RecordedSearchRequest {
  provider: SearchProviderName;
  method: string;
  /** Path and query string as received. */
  path: string;
  /** The search query the provider received. */
  query: string;
  /** Requested result count (Tavily max_results, Brave count), if any. */
  count?: number;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body (Tavily). */
  body?: unknown;
}

export interface FakeSearchServer {
  /** Base URL, e.g. http://127.0.0.1:54321 (no trailing slash). */
  readonly url: string;
  readonly requests: RecordedSearchRequest[];
  /** TCP connections accepted since start or the last reset (keep-alive tests). */
  readonly connections: number;
  /** Delay before every answer, in ms. */
  latencyMs: number;
  /** When set, every answer waits until this settles (released by the test on an event, not a delay). */
  hold: Promise<unknown> | null;
  /** When set, every search answers with this status (and optional JSON body). */
  failWith: { status: number; body?: unknown } | null;
  /** SearXNG answers 403 to format=json, like an instance without JSON enabled. */
  searxngJsonDisabled: boolean;
  /** Fixed results for a query (matched case-insensitively after trimming). */
  script(query: string, results: SearchResult[]): void;
  /** Environment variables selecting this fake for a provider; merge into loadConfig's source. */
  env(provider: SearchProviderName): Record<string, string>;
  reset(): void;
  close(): Promise<void>;
}

/** Deterministic results: `count` distinct pages per query. */
export function defaultResults(query: string, count = 5): SearchResult[] {
  const slug =
    query
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'q';
  return Array.from({ length: count }, (_, i) => ({
    title: `Result ${i + 1} for ${query}`,
    url: `https://example.com/${slug}/${i + 1}`,
    snippet: `Snippet ${i + 1} about ${query}.`,
  }));
}

/** Titles and snippets go in as HTML, as DuckDuckGo's own markup (with <b> highlights) does. */
function duckDuckGoHtml(results: SearchResult[]): string {
  const items = results
    .map(
      (r) => `<div class="result results_links results_links_deep web-result">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(r.url)}&amp;rut=abc">${r.title}</a></h2>
    <a class="result__snippet" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(r.url)}">${r.snippet}</a>
  </div>
</div>`,
    )
    .join('\n');
  return `<!DOCTYPE html><html><head><title>DuckDuckGo</title></head><body><div class="results">${items}</div></body></html>`;
}

export async function startFakeSearchServer(options: { latencyMs?: number } = {}): Promise<FakeSearchServer> {
  const scripted = new Map<string, SearchResult[]>();
  const key = (q: string) => q.trim().toLowerCase();
  const resultsFor = (query: string, count?: number) =>
    (scripted.get(key(query)) ?? defaultResults(query, count ?? 5)).slice(0, count ?? 20);

  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let data = '';
      req.on('data', (c: Buffer) => {
        data += c.toString();
      });
      req.on('end', () => resolve(data));
    });

  const send = (res: ServerResponse, status: number, body: unknown, type = 'application/json') => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': type });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const rawBody = await readBody(req);
    let provider: SearchProviderName | undefined;
    let query = '';
    let count: number | undefined;
    let body: unknown;
    if (req.method === 'POST' && url.pathname === '/search') {
      provider = 'tavily';
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = rawBody;
      }
      const b = body as { query?: string; max_results?: number };
      query = b?.query ?? '';
      count = b?.max_results;
    } else if (req.method === 'GET' && url.pathname === '/res/v1/web/search') {
      provider = 'brave';
      query = url.searchParams.get('q') ?? '';
      count = url.searchParams.has('count') ? Number(url.searchParams.get('count')) : undefined;
    } else if (req.method === 'GET' && url.pathname === '/search') {
      provider = 'searxng';
      query = url.searchParams.get('q') ?? '';
    } else if (req.method === 'GET' && url.pathname === '/html/') {
      provider = 'duckduckgo';
      query = url.searchParams.get('q') ?? '';
    }
    if (!provider) return send(res, 404, { error: 'not found' });
    server.requests.push({
      provider,
      method: req.method ?? '',
      path: req.url ?? '',
      query,
      count,
      headers: req.headers,
      body,
    });

    if (server.latencyMs > 0) await new Promise((r) => setTimeout(r, server.latencyMs));
    if (server.hold) await server.hold;
    if (server.failWith)
      return send(res, server.failWith.status, server.failWith.body ?? { error: 'scripted failure' });

    const results = resultsFor(query, count);
    switch (provider) {
      case 'tavily':
        if (req.headers.authorization !== `Bearer ${FAKE_TAVILY_KEY}`)
          return send(res, 401, { detail: 'Unauthorized' });
        return send(res, 200, {
          query,
          results: results.map((r, i) => ({
            title: r.title,
            url: r.url,
            content: r.snippet,
            score: 1 - i / 10,
          })),
          response_time: 0.1,
        });
      case 'brave':
        if (req.headers['x-subscription-token'] !== FAKE_BRAVE_KEY)
          return send(res, 401, { type: 'ErrorResponse' });
        return send(res, 200, {
          type: 'search',
          query: { original: query },
          web: {
            type: 'search',
            results: results.map((r) => ({ title: r.title, url: r.url, description: r.snippet })),
          },
        });
      case 'searxng':
        if (url.searchParams.get('format') === 'json' && server.searxngJsonDisabled) {
          return send(res, 403, '<h1>403 Forbidden</h1>', 'text/html');
        }
        return send(res, 200, {
          query,
          number_of_results: results.length,
          results: results.map((r) => ({ title: r.title, url: r.url, content: r.snippet, engine: 'fake' })),
        });
      case 'duckduckgo':
        return send(res, 200, duckDuckGoHtml(results), 'text/html; charset=utf-8');
    }
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch((err) => send(res, 500, { error: String(err) }));
  });
  let accepted = 0;
  http.on('connection', () => {
    accepted += 1;
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const server: FakeSearchServer = {
    url: base,
    requests: [],
    get connections() {
      return accepted;
    },
    latencyMs: options.latencyMs ?? 0,
    hold: null,
    failWith: null,
    searxngJsonDisabled: false,
    script(query, results) {
      scripted.set(key(query), results);
    },
    env(provider): Record<string, string> {
      switch (provider) {
        case 'tavily':
          return { SEARCH_PROVIDER: 'tavily', TAVILY_API_KEY: FAKE_TAVILY_KEY, TAVILY_BASE_URL: base };
        case 'brave':
          return { SEARCH_PROVIDER: 'brave', BRAVE_API_KEY: FAKE_BRAVE_KEY, BRAVE_BASE_URL: base };
        case 'searxng':
          return { SEARCH_PROVIDER: 'searxng', SEARXNG_URL: base };
        case 'duckduckgo':
          return { SEARCH_PROVIDER: 'duckduckgo', DUCKDUCKGO_BASE_URL: base };
      }
    },
    reset() {
      server.requests.length = 0;
      accepted = 0;
      scripted.clear();
      server.failWith = null;
      server.searxngJsonDisabled = false;
      server.latencyMs = options.latencyMs ?? 0;
      server.hold = null;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.closeAllConnections();
        http.close((err) => (err ? reject(err) : resolve()));
      }),
  };
  return server;
}
