import { LRUCache } from 'lru-cache';
import type { DedupeService } from './types.js';
import { bounded } from './bounded.js';
import type { RedisClient } from './redis-connection.js';

/** Markers remembered by one process; far more than the deliveries seen within a dedupe window. */
const MEMORY_DEDUPE_MAX_KEYS = 100_000;
/** Fallback lifetime when a caller passes a non-positive ttl. */
const FALLBACK_DEDUPE_TTL_MS = 60 * 60_000;

/** In-process dedupe for memory:// and sqlite:// (one instance): check-and-set is synchronous. */
export class MemoryDedupe implements DedupeService {
  private readonly seen = new LRUCache<string, true>({
    max: MEMORY_DEDUPE_MAX_KEYS,
    ttl: FALLBACK_DEDUPE_TTL_MS,
  });

  async firstSeen(key: string, ttlMs: number): Promise<boolean> {
    if (this.seen.has(key)) return false;
    this.seen.set(key, true, { ttl: ttlMs > 0 ? ttlMs : FALLBACK_DEDUPE_TTL_MS });
    return true;
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
