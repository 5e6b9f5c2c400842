/**
 * The store's readiness check: a round trip (Redis PING, a SQLite query) within the store's own
 * ping timeout. Registered as "store" in the readiness registry.
 */
import type { Stores } from '../store/types.js';
import type { ReadinessCheck } from './readiness.js';

export function storeCheck(stores: Pick<Stores, 'ping'>): ReadinessCheck {
  return async () => {
    const ok = await stores.ping().catch(() => false);
    return ok ? { ok: true } : { ok: false, detail: 'unreachable' };
  };
}
