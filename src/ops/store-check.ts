/**
 * The store's readiness check: a round trip (Redis PING, a SQLite query) within the store's own
 * ping timeout, then a small write (store-write-check.ts, rate-limited) — a read-only SQLite file or a
 * Redis replica answers pings while every turn fails to save. Registered as "store" in the
 * readiness registry; the detail names the part that failed.
 */
import type { Stores } from '../store/types.js';
import type { ReadinessCheck } from './readiness.js';
import { createStoreWriteCheck } from './store-write-check.js';

export function storeCheck(stores: Pick<Stores, 'ping' | 'meta' | 'problem'>): ReadinessCheck {
  const writable = createStoreWriteCheck(stores.meta);
  return async () => {
    const ok = await stores.ping().catch(() => false);
    if (!ok) return { ok: false, detail: stores.problem?.() ?? 'unreachable' };
    return (await writable()) ? { ok: true } : { ok: false, detail: 'reachable, but a write failed' };
  };
}
