import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { type Logger, createLogger, silentLogger } from '../../src/logger.js';
import { SNIPPET_MAX_CHARS } from '../../src/search/clean-results.js';
import { defaultResults } from '../helpers/fake-search-server.js';
import { searchServiceWith, useFakeSearch } from './search-kit.js';

const fake = useFakeSearch();

function service(logger: Logger = silentLogger, store = new Keyv()) {
  return searchServiceWith(fake.env('tavily'), { logger, store });
}

describe('results', () => {
  it('caps results at 5 and snippets at 200 characters, cut at a word with an ellipsis', async () => {
    const long = `${'word '.repeat(80)}end`;
    fake.script('many', [
      ...defaultResults('many', 8).map((r) => ({ ...r, snippet: long })),
      { title: 'dup', url: 'https://example.com/many/1', snippet: 'duplicate URL' },
    ]);
    const search = service();
    const { results } = await search.search('many', { sessionKey: 's' });
    expect(results).toHaveLength(5);
    for (const r of results) {
      expect(r.snippet.length).toBeLessThanOrEqual(SNIPPET_MAX_CHARS);
      expect(r.snippet.endsWith('word…')).toBe(true);
    }
  });

  it('drops results whose URL is not http(s) and fills an empty title with the host', async () => {
    fake.script('urls', [
      { title: 'bad', url: 'javascript:alert(1)', snippet: '' },
      { title: '  ', url: 'https://example.org/page', snippet: 's' },
    ]);
    const { results } = await service().search('urls', { sessionKey: 's' });
    expect(results).toEqual([{ title: 'example.org', url: 'https://example.org/page', snippet: 's' }]);
  });
});

describe('per-session cache', () => {
  it('a repeated (normalised) query is served from the cache with no HTTP request, and the hit is logged', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => lines.push(l) } });
    const search = service(logger);
    const first = await search.search('Rust  Async', { sessionKey: 's' });
    const second = await search.search('  rust async ', { sessionKey: 's' });
    expect(first.cached).toBe(false);
    expect(second.cached).toBe(true);
    expect(second.results).toEqual(first.results);
    expect(fake.requests).toHaveLength(1);
    expect(lines.some((l) => l.includes('search cache hit'))).toBe(true);
  });

  it('the 21st distinct query evicts the least recently used entry', async () => {
    const search = service();
    for (let i = 1; i <= 20; i++) await search.search(`q${i}`, { sessionKey: 's' });
    await search.search('q1', { sessionKey: 's' }); // q1 becomes most recent; q2 is now the LRU
    expect(fake.requests).toHaveLength(20);
    await search.search('q21', { sessionKey: 's' }); // evicts q2
    expect(fake.requests).toHaveLength(21);
    await search.search('q1', { sessionKey: 's' });
    await search.search('q20', { sessionKey: 's' });
    expect(fake.requests).toHaveLength(21); // recent ones still cached
    await search.search('q2', { sessionKey: 's' });
    expect(fake.requests).toHaveLength(22); // the evicted one makes a new request
    expect(fake.requests.at(-1)?.query).toBe('q2');
  });

  it('sessions do not share a cache, and clearSession empties only that session', async () => {
    const search = service();
    await search.search('shared', { sessionKey: 'a' });
    await search.search('shared', { sessionKey: 'b' });
    expect(fake.requests).toHaveLength(2);
    await search.clearSession('a');
    expect((await search.search('shared', { sessionKey: 'a' })).cached).toBe(false);
    expect((await search.search('shared', { sessionKey: 'b' })).cached).toBe(true);
    expect(fake.requests).toHaveLength(3);
  });

  it('concurrent searches in one session all land in the cache, identical ones share a request', async () => {
    fake.latencyMs = 20;
    const search = service();
    const queries = ['a', 'b', 'c', 'd', 'a', 'a'];
    const outcomes = await Promise.all(queries.map((q) => search.search(q, { sessionKey: 's' })));
    expect(outcomes.every((o) => o.results.length === 5)).toBe(true);
    expect(fake.requests).toHaveLength(4);
    for (const q of ['a', 'b', 'c', 'd'])
      expect((await search.search(q, { sessionKey: 's' })).cached).toBe(true);
    expect(fake.requests).toHaveLength(4);
  });

  it('failures are not cached', async () => {
    const search = service();
    fake.failWith = { status: 500 };
    await expect(search.search('x', { sessionKey: 's' })).rejects.toThrow();
    fake.failWith = null;
    expect((await search.search('x', { sessionKey: 's' })).cached).toBe(false);
  });

  it('a search in a session with 20 cached queries reads and writes its own results, not the whole cache', async () => {
    const store = new Keyv();
    const search = service(silentLogger, store);
    for (let i = 1; i <= 20; i++) await search.search(`q${i}`, { sessionKey: 's' });
    // What one query's results weigh as stored.
    const oneQuery = JSON.stringify((await search.search('q20', { sessionKey: 's' })).results).length;
    const moved: number[] = [];
    const get = store.get.bind(store);
    const set = store.set.bind(store);
    store.get = (async (key: string) => {
      const value = await get(key);
      moved.push(value === undefined ? 0 : JSON.stringify(value).length);
      return value;
    }) as typeof store.get;
    store.set = (async (key: string, value: unknown, ttl?: number) => {
      moved.push(JSON.stringify(value).length);
      return set(key, value, ttl);
    }) as typeof store.set;

    expect((await search.search('q5', { sessionKey: 's' })).cached).toBe(true);
    expect((await search.search('q21', { sessionKey: 's' })).cached).toBe(false);
    expect((await search.search('q21', { sessionKey: 's' })).cached).toBe(true);
    expect(moved.length).toBeGreaterThan(0);
    // Each read or write is about one query's results or the small index, never all twenty.
    for (const bytes of moved) expect(bytes).toBeLessThan(3 * oneQuery);
    // A hit still refreshes recency: four more new queries evict q1-q4 and then q6, not q5.
    for (const q of ['q22', 'q23', 'q24', 'q25']) await search.search(q, { sessionKey: 's' });
    const requests = fake.requests.length;
    expect((await search.search('q5', { sessionKey: 's' })).cached).toBe(true);
    expect((await search.search('q6', { sessionKey: 's' })).cached).toBe(false);
    expect(fake.requests.length).toBe(requests + 1);
  });

  it('a broken cache store does not break the search', async () => {
    const broken = new Keyv();
    broken.get = async () => {
      throw new Error('store down');
    };
    broken.set = async () => {
      throw new Error('store down');
    };
    const { results } = await service(silentLogger, broken).search('x', { sessionKey: 's' });
    expect(results).toHaveLength(5);
  });
});
