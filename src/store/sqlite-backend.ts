import { mkdir } from 'node:fs/promises';
import { StoreError } from '../errors.js';
import path from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import type { Logger } from '../logger.js';
import type { RawStore } from './bounded-adapter.js';
import { bounded, throttledErrorLog, toStoreError } from './bounded.js';
import { FileIdentity, SQLITE_FILE_LOST } from './sqlite-file-identity.js';

/** SQLite waits this long for a write lock held by another connection before failing. */
const SQLITE_BUSY_TIMEOUT_MS = 3_000;
/** Expired rows are only dropped when read; a periodic sweep removes the ones nobody reads again. */
const SQLITE_SWEEP_INTERVAL_MS = 60 * 60_000;
/** Keyv's default table for @keyv/sqlite. */
const TABLE = 'keyv';

/** One SQLite connection shared by every namespace (keys are prefixed `namespace:` by Keyv). */
export interface SqliteBackend {
  rawStore(namespace: string): RawStore;
  ping(timeoutMs: number): Promise<boolean>;
  /** Why the store cannot work any more (the file is gone), once that is known. */
  problem(): string | undefined;
  close(): Promise<void>;
}

export async function openSqlite(file: string, logger: Logger, timeoutMs: number): Promise<SqliteBackend> {
  if (file !== ':memory:') {
    await mkdir(path.dirname(file), { recursive: true }).catch((err: unknown) => {
      throw toStoreError(err, 'sqlite open');
    });
  }
  const db = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: SQLITE_BUSY_TIMEOUT_MS });
  // KeyvSqlite is an EventEmitter: an 'error' without a listener would crash the process.
  db.on(
    'error',
    throttledErrorLog((message) => logger.error({ err: message }, 'sqlite store error')),
  );
  // Fails startup with a clear StoreError when the file cannot be opened (bad path, permissions).
  await bounded('sqlite open', timeoutMs, () => db.query('SELECT 1'));
  const identity = await FileIdentity.of(file, logger);
  /** Writes to a lost file would only go to the deleted one: refused, so the turn says "not saved". */
  const writable = async <T>(write: () => Promise<T>): Promise<T> => {
    if (identity && !(await identity.intact(true)))
      throw new StoreError(`store sqlite write refused: ${SQLITE_FILE_LOST}`);
    return write();
  };

  const sweep = async () => {
    try {
      await db.query(
        `DELETE FROM ${TABLE} WHERE json_valid(value) AND json_extract(value, '$.expires') < ?`,
        Date.now(),
      );
    } catch (err) {
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'sqlite expiry sweep failed');
    }
  };
  await sweep();
  const sweepTimer = setInterval(() => void sweep(), SQLITE_SWEEP_INTERVAL_MS);
  sweepTimer.unref();

  return {
    rawStore(namespace) {
      const prefix = `${namespace}:`;
      return {
        get: (key) => db.get(key),
        set: (key, value) => writable(() => db.set(key, value)),
        delete: (key) => writable(() => db.delete(key)),
        clear: () =>
          writable(async () => {
            await db.query(`DELETE FROM ${TABLE} WHERE substr(key, 1, ?) = ?`, prefix.length, prefix);
          }),
      };
    },
    async ping(pingTimeoutMs) {
      if (identity && !(await identity.intact())) return false;
      try {
        await bounded('sqlite ping', pingTimeoutMs, () => db.query('SELECT 1'));
        return true;
      } catch {
        return false;
      }
    },
    problem: () => (identity?.lost ? SQLITE_FILE_LOST : undefined),
    async close() {
      clearInterval(sweepTimer);
      await db.disconnect();
    },
  };
}
