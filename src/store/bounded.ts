import { StoreError } from '../errors.js';

/**
 * Default bound on one store operation. Long enough for a slow Redis or a busy SQLite file, short
 * enough that a turn never hangs on a store that stopped answering.
 */
export const DEFAULT_OPERATION_TIMEOUT_MS = 5_000;

/** Turns any failure into a StoreError that names the operation (never the key or the value). */
export function toStoreError(err: unknown, what: string): StoreError {
  if (err instanceof StoreError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new StoreError(`store ${what} failed: ${reason}`, { cause: err });
}

/**
 * Runs `op` and rejects with StoreError when it fails or takes longer than `timeoutMs`. The operation
 * itself cannot be cancelled (Keyv and the Redis client have no abort), so a late result is dropped.
 */
export async function bounded<T>(what: string, timeoutMs: number, op: () => Promise<T> | T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StoreError(`store ${what} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    const running = Promise.resolve().then(op);
    // A late rejection after the timeout must not become an unhandled rejection.
    running.catch(() => {});
    return await Promise.race([running, timeout]);
  } catch (err) {
    throw toStoreError(err, what);
  } finally {
    clearTimeout(timer);
  }
}

/** Logs store errors at most once per message per window, so a Redis outage does not flood the log. */
export function throttledErrorLog(log: (message: string) => void, windowMs = 30_000): (err: unknown) => void {
  const lastLogged = new Map<string, number>();
  return (err) => {
    const message = err instanceof Error ? err.message : String(err);
    const now = Date.now();
    const last = lastLogged.get(message);
    if (last !== undefined && now - last < windowMs) return;
    if (lastLogged.size > 100) lastLogged.clear();
    lastLogged.set(message, now);
    log(message);
  };
}
