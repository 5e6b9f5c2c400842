import type { DedupeService } from './types.js';
import { bounded } from './bounded.js';
import type { RedisClient } from './redis-connection.js';

/** Markers remembered by one process; far more than the deliveries seen within a dedupe window. */
const MEMORY_DEDUPE_MAX_KEYS = 100_000;
/** Fallback lifetime when a caller passes a non-positive ttl. */
const FALLBACK_DEDUPE_TTL_MS = 60 * 60_000;

/**
 * In-process dedupe for memory:// and sqlite:// (one instance): check-and-set is synchronous.
 *
 * A Map of key → expiry in insertion order rather than an LRU cache: lru-cache allocates its
 * arrays for `max` entries up front (about 3 MiB for 100,000, resident from start-up on), while
 * this holds only the keys of the current dedupe window. Callers use one TTL per kind of key, so
 * the oldest entries expire first and are dropped from the front as new ones arrive.
 */
export class MemoryDedupe implements DedupeService {
  private readonly seen = new Map<string, number>();

  constructor(private readonly maxKeys = MEMORY_DEDUPE_MAX_KEYS) {}

  async firstSeen(key: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const expires = this.seen.get(key);
    if (expires !== undefined && expires > now) return false;
    this.seen.delete(key);
    this.dropExpired(now);
    this.seen.set(key, now + (ttlMs > 0 ? ttlMs : FALLBACK_DEDUPE_TTL_MS));
    return true;
  }

  /** Expired entries at the front, then the oldest beyond `maxKeys`. */
  private dropExpired(now: number): void {
    for (const [key, expires] of this.seen) {
      if (expires > now && this.seen.size < this.maxKeys) break;
      this.seen.delete(key);
    }
  }
}

/** Cross-instance dedupe: `SET key 1 NX PX ttl`, so exactly one instance sees `true`. */
export class RedisDedupe implements DedupeService {
  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix: string,
    private readonly timeoutMs: number,
  ) {}

  async firstSeen(key: string, ttlMs: number): Promise<boolean> {
    const reply = await bounded('dedupe', this.timeoutMs, () =>
      this.client.set(`${this.keyPrefix}${key}`, '1', {
        condition: 'NX',
        expiration: { type: 'PX', value: ttlMs > 0 ? ttlMs : FALLBACK_DEDUPE_TTL_MS },
      }),
    );
    return reply === 'OK';
  }
}
