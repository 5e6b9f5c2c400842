import { describe, expect, it } from 'vitest';
import { SearchError } from '../../src/errors.js';
import type { SearchProviderName } from '../../src/search/types.js';
import { FAKE_BRAVE_KEY, FAKE_TAVILY_KEY } from '../helpers/fake-search-server.js';
import { searchServiceWith, useFakeSearch } from './search-kit.js';

const fake = useFakeSearch();

function service(env: Record<string, string>) {
  return searchServiceWith({ SEARCH_TIMEOUT_MS: '2000', ...env });
}

const RESULTS = [
  {
    title: 'Rust &amp; <b>async</b>',
    url: 'https://rust-lang.org/async',
    snippet: 'The <strong>async</strong> book.',
  },
  { title: 'Tokio', url: 'https://tokio.rs/', snippet: 'A runtime.' },
];

describe('search providers against the fake server', () => {
  it('Tavily: POST /search with a Bearer key and {query, max_results}', async () => {
    fake.script('rust async', RESULTS);
    const search = service(fake.env('tavily'));
    expect(search.providerName).toBe('tavily');
    const { results, cached } = await search.search('rust async', { sessionKey: 's1' });
    expect(cached).toBe(false);
    expect(results).toEqual([
      { title: 'Rust & async', url: 'https://rust-lang.org/async', snippet: 'The async book.' },
      { title: 'Tokio', url: 'https://tokio.rs/', snippet: 'A runtime.' },
    ]);
    const [req] = fake.requests;
    expect(req?.method).toBe('POST');
    expect(req?.headers.authorization).toBe(`Bearer ${FAKE_TAVILY_KEY}`);
    expect(req?.body).toEqual({ query: 'rust async', max_results: 5 });
  });

  it('Brave: GET /res/v1/web/search with q, count and X-Subscription-Token', async () => {
    fake.script('rust async', RESULTS);
    const search = service(fake.env('brave'));
    const { results } = await search.search('rust async', { sessionKey: 's1' });
    expect(results.map((r) => r.url)).toEqual(['https://rust-lang.org/async', 'https://tokio.rs/']);
    const [req] = fake.requests;
    expect(req?.provider).toBe('brave');
    expect(req?.headers['x-subscription-token']).toBe(FAKE_BRAVE_KEY);
    expect(req?.query).toBe('rust async');
    expect(req?.count).toBe(5);
  });

  it('SearXNG: GET /search?format=json, no key', async () => {
    const search = service(fake.env('searxng'));
    const { results } = await search.search('中文 查询', { sessionKey: 's1' });
    expect(results).toHaveLength(5);
    const [req] = fake.requests;
    expect(req?.provider).toBe('searxng');
    expect(req?.query).toBe('中文 查询');
    expect(req?.path).toContain('format=json');
    expect(req?.headers.authorization).toBeUndefined();
  });

  it('SearXNG behind basic auth: URL credentials go as a header and never into an error message', async () => {
    const password = 'S3cr3t-searx-pass';
    const base = fake.env('searxng').SEARXNG_URL ?? '';
    const search = service({
      SEARCH_PROVIDER: 'searxng',
      SEARXNG_URL: base.replace('://', `://scout:${password}@`),
    });
    const { results } = await search.search('rust async', { sessionKey: 's1' });
    expect(results.length).toBeGreaterThan(0);
    const expected = `Basic ${Buffer.from(`scout:${password}`).toString('base64')}`;
    expect(fake.requests[0]?.headers.authorization).toBe(expected);

    // A failure message quotes the URL it failed on; it reaches logs, the model and the user.
    const dead = service({
      SEARCH_PROVIDER: 'searxng',
      SEARXNG_URL: `http://scout:${password}@127.0.0.1:1/`,
    });
    const err = await dead.search('x', { sessionKey: 's1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SearchError);
    expect((err as SearchError).message).not.toContain(password);
  });

  it('SearXNG: a 403 says JSON must be enabled in settings.yml', async () => {
    fake.searxngJsonDisabled = true;
    const search = service(fake.env('searxng'));
    const err = await search.search('x', { sessionKey: 's1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SearchError);
    expect((err as SearchError).message).toMatch(/settings\.yml/);
    expect((err as SearchError).status).toBe(403);
  });

  it('DuckDuckGo: parses the HTML page and unwraps redirect links', async () => {
    fake.script('rust async', RESULTS);
    const search = service(fake.env('duckduckgo'));
    const { results } = await search.search('rust async', { sessionKey: 's1' });
    expect(results[0]).toEqual({
      title: 'Rust & async',
      url: 'https://rust-lang.org/async',
      snippet: 'The async book.',
    });
    expect(results).toHaveLength(2);
    expect(fake.requests[0]?.path).toMatch(/^\/html\/\?q=rust\+async/);
  });

  it('a wrong key becomes a SearchError that does not contain the key', async () => {
    const search = service({ ...fake.env('tavily'), TAVILY_API_KEY: 'tvly-wrong-secret' });
    const err = await search.search('x', { sessionKey: 's1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SearchError);
    expect((err as SearchError).status).toBe(401);
    expect(String((err as Error).message)).not.toContain('tvly-wrong-secret');
    expect(JSON.stringify(err)).not.toContain('tvly-wrong-secret');
  });

  it('a server error and a timeout become SearchErrors', async () => {
    const search = service(fake.env('brave'));
    fake.failWith = { status: 503 };
    await expect(search.search('x', { sessionKey: 's1' })).rejects.toThrow(/HTTP 503/);
    fake.failWith = null;
    fake.latencyMs = 800;
    const slow = service({ ...fake.env('brave'), SEARCH_TIMEOUT_MS: '500' });
    await expect(slow.search('y', { sessionKey: 's1' })).rejects.toThrow(/within 500 ms/);
  });

  it('an unreachable provider is a SearchError', async () => {
    const search = service({ ...fake.env('tavily'), TAVILY_BASE_URL: 'http://127.0.0.1:1' });
    await expect(search.search('x', { sessionKey: 's1' })).rejects.toBeInstanceOf(SearchError);
  });
});

describe('provider selection', () => {
  const pick = (env: Record<string, string>) => service(env).providerName;

  it('auto prefers Tavily, then Brave, then SearXNG; DuckDuckGo only when chosen', () => {
    expect(pick({ TAVILY_API_KEY: 'k', BRAVE_API_KEY: 'k', SEARXNG_URL: 'http://s' })).toBe('tavily');
    expect(pick({ BRAVE_API_KEY: 'k', SEARXNG_URL: 'http://s' })).toBe('brave');
    expect(pick({ SEARXNG_URL: 'http://s' })).toBe('searxng');
    expect(pick({})).toBe('none');
    expect(pick({ SEARCH_PROVIDER: 'duckduckgo' })).toBe('duckduckgo');
  });

  it('none leaves search unavailable; an explicit provider without its key is a configuration error', async () => {
    const off = service({ SEARCH_PROVIDER: 'none', TAVILY_API_KEY: 'k' });
    expect(off.available).toBe(false);
    // Caught at start (and by --check), not discovered at the first search.
    expect(() => service({ SEARCH_PROVIDER: 'brave' as SearchProviderName })).toThrow(
      'BRAVE_API_KEY: required by SEARCH_PROVIDER=brave but not set',
    );
    await expect(off.search('x', { sessionKey: 's' })).rejects.toBeInstanceOf(SearchError);
  });
});
