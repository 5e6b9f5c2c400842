/**
 * A flood from one address is refused with 429 before it costs anything: a token bucket of requests
 * per address, a cap on open event streams per address, and a slower bucket for login attempts
 * (password guessing). Addresses are remembered in a bounded LRU, so a spray of addresses cannot grow it.
 */
import { LRUCache } from 'lru-cache';

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBuckets {
  readonly #buckets = new LRUCache<string, Bucket>({ max: 10_000 });

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {}

  /** Takes one token for `key`; false when its bucket is empty. */
  take(key: string, now = Date.now()): boolean {
    const bucket = this.#buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    const ok = bucket.tokens >= 1;
    if (ok) bucket.tokens -= 1;
    this.#buckets.set(key, bucket);
    return ok;
  }
}

export class OpenStreams {
  readonly #open = new Map<string, number>();

  constructor(private readonly perAddress: number) {}

  /** Counts a new stream for `key`; false when it already has its share open. */
  open(key: string): boolean {
    const n = this.#open.get(key) ?? 0;
    if (n >= this.perAddress) return false;
    this.#open.set(key, n + 1);
    return true;
  }

  close(key: string): void {
    const n = (this.#open.get(key) ?? 1) - 1;
    if (n <= 0) this.#open.delete(key);
    else this.#open.set(key, n);
  }
}
