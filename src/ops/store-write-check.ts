/**
 * Can the store take a write? A ping only proves it answers: a read-only SQLite file or a Redis
 * replica answers pings while every turn fails to save. The "store" readiness check (store-check.ts)
 * asks this; the probe writes one small key with a short TTL, at most once per interval (probes come
 * every few seconds), and concurrent callers share the probe in flight.
 */
import type Keyv from 'keyv';

/** A fresh probe at most this often after a success; in between, the last result is reported. */
export const STORE_WRITE_CHECK_INTERVAL_MS = 10_000;
/** After a failure, probe again sooner: a store that is back should be reported healthy quickly. */
const RETRY_AFTER_FAILURE_MS = 1_000;
/** /healthz answers within this even when the store hangs. */
const PROBE_TIMEOUT_MS = 2_000;
const PROBE_KEY = 'health:write-probe';
const PROBE_TTL_MS = 60_000;

export type StoreWriteCheck = () => Promise<boolean>;

export function createStoreWriteCheck(
  meta: Pick<Keyv, 'set'>,
  options: { intervalMs?: number; now?: () => number } = {},
): StoreWriteCheck {
  const intervalMs = options.intervalMs ?? STORE_WRITE_CHECK_INTERVAL_MS;
  const now = options.now ?? Date.now;
  let last: { at: number; ok: boolean } | undefined;
  let inFlight: Promise<boolean> | undefined;

  const probe = async (): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
      timer.unref();
    });
    try {
      const write = meta.set(PROBE_KEY, now(), PROBE_TTL_MS).then(
        (stored) => stored !== false,
        () => false,
      );
      return await Promise.race([write, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  return () => {
    if (last && now() - last.at < (last.ok ? intervalMs : Math.min(intervalMs, RETRY_AFTER_FAILURE_MS)))
      return Promise.resolve(last.ok);
    inFlight ??= probe().then((ok) => {
      last = { at: now(), ok };
      inFlight = undefined;
      return ok;
    });
    return inFlight;
  };
}
