/**
 * The per-session search cache: an LRU list of up to CACHE_MAX_ENTRIES queries per session key, in
 * Keyv, so it survives restarts and is shared by instances on Redis. Reads and writes for one session
 * are serialised in-process so concurrent tool calls do not lose updates.
 *
 * Stored as a small index record per session (the queries in LRU order, each with the id of its
 * results) and one record per query's results. A search reads the index and, on a hit, its own
 * results; it writes the index and, on a miss, its own results. Until 2026-11 the whole list with
 * every query's results was one record, read twice and written once per search: a busy channel's 20
 * cached queries made each search parse and stringify about 60 KB, about 2 ms of CPU per agent turn
 * of two searches (bench scenario 17's CPU profile), and as many bytes to Redis and back.
 */
import type Keyv from 'keyv';
import type { SearchResult } from './types.js';

/** SPEC §4 / seed 002: at most 20 cached queries per session, least recently used evicted first. */
export const CACHE_MAX_ENTRIES = 20;

interface IndexEntry {
  /** Normalised query. */
  q: string;
  /** How many results were asked for; a later call asking for more is a miss. */
  limit: number;
  /** Where its results are: `resultsKey(sessionKey, id)`. */
  id: number;
}

interface CacheIndex {
  /** Least recently used first. */
  entries: IndexEntry[];
  /** The id the next stored query gets. */
  next: number;
}

/**
 * The index's key. Not the session key itself: that held the single record of the earlier layout,
 * which is left to expire (and is deleted by `clear`).
 */
const indexKey = (sessionKey: string) => `${sessionKey}\u001fidx`;
const resultsKey = (sessionKey: string, id: number) => `${sessionKey}\u001f${id}`;

export class SessionSearchCache {
  /** Tail of the per-session operation chain (in-process serialisation). */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: Keyv,
    private readonly ttlMs: number,
    private readonly maxEntries = CACHE_MAX_ENTRIES,
  ) {}

  /** Returns the cached results (and marks them most recently used), or undefined. */
  get(sessionKey: string, query: string, limit: number): Promise<SearchResult[] | undefined> {
    return this.serialised(sessionKey, async () => {
      const index = await this.readIndex(sessionKey);
      const at = index.entries.findIndex((e) => e.q === query);
      const entry = index.entries[at];
      if (!entry || entry.limit < limit) return undefined;
      const results = (await this.store.get(resultsKey(sessionKey, entry.id))) as SearchResult[] | undefined;
      index.entries.splice(at, 1);
      // Results gone without the index (expired first, or evicted by another instance): a miss.
      if (Array.isArray(results)) index.entries.push(entry);
      await this.store.set(indexKey(sessionKey), index, this.ttlMs);
      return Array.isArray(results) ? results.slice(0, limit) : undefined;
    });
  }

  /** Stores results as the most recently used entry, evicting the least recently used beyond the cap. */
  set(sessionKey: string, query: string, limit: number, results: SearchResult[]): Promise<void> {
    return this.serialised(sessionKey, async () => {
      const index = await this.readIndex(sessionKey);
      const gone = index.entries.filter((e) => e.q === query);
      index.entries = index.entries.filter((e) => e.q !== query);
      const id = index.next++;
      index.entries.push({ q: query, limit, id });
      while (index.entries.length > this.maxEntries) gone.push(index.entries.shift()!);
      // The results before the index that points at them.
      await this.store.set(resultsKey(sessionKey, id), results, this.ttlMs);
      await this.store.set(indexKey(sessionKey), index, this.ttlMs);
      await Promise.all(gone.map((e) => this.store.delete(resultsKey(sessionKey, e.id))));
    });
  }

  clear(sessionKey: string): Promise<void> {
    return this.serialised(sessionKey, async () => {
      const index = await this.readIndex(sessionKey);
      await this.store.delete(indexKey(sessionKey));
      await Promise.all([
        ...index.entries.map((e) => this.store.delete(resultsKey(sessionKey, e.id))),
        // The single record of the earlier layout, if one is still there.
        this.store.delete(sessionKey),
      ]);
    });
  }

  private async readIndex(sessionKey: string): Promise<CacheIndex> {
    const index = (await this.store.get(indexKey(sessionKey))) as Partial<CacheIndex> | undefined;
    if (!index || !Array.isArray(index.entries)) return { entries: [], next: 0 };
    const entries = index.entries.filter((e) => Number.isSafeInteger(e?.id) && typeof e.q === 'string');
    // Ids stay unique even if `next` were lost: past every id in use.
    const next = Math.max(Number(index.next) || 0, ...entries.map((e) => e.id + 1));
    return { entries, next };
  }

  private serialised<T>(sessionKey: string, op: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(sessionKey) ?? Promise.resolve();
    const next = previous.then(op, op);
    const tail = next.catch(() => {});
    this.chains.set(sessionKey, tail);
    // Forget the chain once it is idle so the map does not grow with every session ever seen.
    void tail.then(() => {
      if (this.chains.get(sessionKey) === tail) this.chains.delete(sessionKey);
    });
    return next;
  }
}
