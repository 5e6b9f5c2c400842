/**
 * The per-session search cache: one Keyv record per session key holding an LRU list of up to
 * CACHE_MAX_ENTRIES queries, so it survives restarts and is shared by instances on Redis. Reads and
 * writes for one session are serialised in-process so concurrent tool calls do not lose updates.
 */
import type Keyv from 'keyv';
import type { SearchResult } from './types.js';

/** SPEC §4 / seed 002: at most 20 cached queries per session, least recently used evicted first. */
export const CACHE_MAX_ENTRIES = 20;

interface CacheEntry {
  /** Normalised query. */
  q: string;
  /** How many results were asked for; a later call asking for more is a miss. */
  limit: number;
  results: SearchResult[];
}

interface CacheRecord {
  /** Least recently used first. */
  entries: CacheEntry[];
}

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
      const record = await this.read(sessionKey);
      const index = record.entries.findIndex((e) => e.q === query);
      const entry = record.entries[index];
      if (!entry || entry.limit < limit) return undefined;
      record.entries.splice(index, 1);
      record.entries.push(entry);
      await this.store.set(sessionKey, record, this.ttlMs);
      return entry.results.slice(0, limit);
    });
  }

  /** Stores results as the most recently used entry, evicting the least recently used beyond the cap. */
  set(sessionKey: string, query: string, limit: number, results: SearchResult[]): Promise<void> {
    return this.serialised(sessionKey, async () => {
      const record = await this.read(sessionKey);
      record.entries = record.entries.filter((e) => e.q !== query);
      record.entries.push({ q: query, limit, results });
      while (record.entries.length > this.maxEntries) record.entries.shift();
      await this.store.set(sessionKey, record, this.ttlMs);
    });
  }

  clear(sessionKey: string): Promise<void> {
    return this.serialised(sessionKey, async () => {
      await this.store.delete(sessionKey);
    });
  }

  private async read(sessionKey: string): Promise<CacheRecord> {
    const record = (await this.store.get(sessionKey)) as CacheRecord | undefined;
    return record && Array.isArray(record.entries) ? { entries: [...record.entries] } : { entries: [] };
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
