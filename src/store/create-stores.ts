import Keyv from 'keyv';
import type { Logger } from '../logger.js';
import { BoundedAdapter, type RawStore } from './bounded-adapter.js';
import { DEFAULT_OPERATION_TIMEOUT_MS, throttledErrorLog } from './bounded.js';
import type { BackendParts } from './backend-parts.js';
import { MemoryDedupe } from './dedupe.js';
import { MemoryLockBackend } from './lock-backend.js';
import { QueuedLockService } from './lock-service.js';
import { parseStoreUrl } from './store-url.js';
import type { StoreBackend, Stores } from './types.js';
import { KeyvUsageCounters } from './usage-counters.js';

/** Key prefix when the caller gives none; keeps Scout's keys apart in a shared Redis. */
const DEFAULT_NAMESPACE_PREFIX = 'scout';
/** /healthz must answer quickly even when the store does not. */
const PING_TIMEOUT_MS = 2_000;

export interface CreateStoresOptions {
  /** STORE_URL: memory://, sqlite://path (default sqlite://data/scout.sqlite), redis:// or rediss://. */
  url: string;
  /** Lifetime of conversation history and search cache entries (SESSION_TTL). */
  sessionTtlMs: number;
  logger: Logger;
  /** Isolates keys, e.g. `scout-test-<random>` for tests sharing one Redis. Default `scout`. */
  namespacePrefix?: string;
  /** Bound on each store operation; it then rejects with StoreError. Default 5 s. */
  operationTimeoutMs?: number;
}

/**
 * Opens the store named by `url`. With Redis, an unreachable server does not fail startup: the
 * client reconnects in the background and operations reject with StoreError until it is back.
 * A SQLite file that cannot be opened fails here, with a StoreError naming the problem.
 */
export async function createStores(options: CreateStoresOptions): Promise<Stores> {
  const { logger, sessionTtlMs } = options;
  const timeoutMs = options.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
  const prefix = options.namespacePrefix ?? DEFAULT_NAMESPACE_PREFIX;
  const target = parseStoreUrl(options.url);
  let closed = false;

  const parts = await openBackend(target, prefix, logger, timeoutMs);
  const logKeyvError = throttledErrorLog((message) =>
    logger.warn({ err: message, backend: target.backend }, 'store operation failed'),
  );

  const namespace = (name: string, ttl?: number): Keyv => {
    const ns = `${prefix}:${name}`;
    const adapter = new BoundedAdapter(parts.rawStore(ns), {
      label: `${target.backend} ${name}`,
      timeoutMs,
      isClosed: () => closed,
    });
    const keyv = new Keyv(adapter, {
      namespace: ns,
      // The Redis adapter prefixes keys itself; SQLite and memory rely on Keyv's `namespace:` prefix.
      useKeyPrefix: target.backend !== 'redis',
      throwOnErrors: true,
      // In memory nothing is shared or persisted: plain JSON round-trips the records (Keyv's default
      // serializer walks every value in JavaScript and parses with a reviver, a few % of a turn's CPU).
      ...(target.backend === 'memory' ? { serialize: JSON.stringify, deserialize: JSON.parse } : {}),
      ...(ttl ? { ttl } : {}),
    });
    keyv.on('error', logKeyvError);
    return keyv;
  };

  const locks = new QueuedLockService(parts.lockBackend, logger);
  logger.info({ backend: target.backend }, 'store opened');

  return {
    backend: target.backend as StoreBackend,
    settings: namespace('settings'),
    conversations: namespace('conversations', sessionTtlMs),
    searchCache: namespace('search', sessionTtlMs),
    meta: namespace('meta'),
    locks,
    dedupe: parts.dedupe,
    usage: parts.usage ?? new KeyvUsageCounters(namespace('usage')),
    ...(parts.broadcast ? { broadcast: parts.broadcast } : {}),
    ...(parts.paceBudget ? { paceBudget: parts.paceBudget } : {}),
    ping: () => (closed ? Promise.resolve(false) : parts.ping()),
    problem: () => parts.problem?.(),
    async close() {
      if (closed) return;
      closed = true;
      locks.stop();
      try {
        await parts.close();
      } catch (err) {
        logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'store close failed');
      }
    },
  };
}

async function openBackend(
  target: ReturnType<typeof parseStoreUrl>,
  prefix: string,
  logger: Logger,
  timeoutMs: number,
): Promise<BackendParts> {
  if (target.backend === 'memory') {
    return {
      rawStore: () => memoryRawStore(),
      lockBackend: new MemoryLockBackend(),
      dedupe: new MemoryDedupe(),
      ping: async () => true,
      close: async () => {},
    };
  }
  // The SQLite addon and the Redis client load only for the backend in use (Redis alone adds
  // ~18 MiB to every process that never talks to it).
  if (target.backend === 'sqlite') {
    const { openSqlite } = await import('./sqlite-backend.js');
    const sqlite = await openSqlite(target.file, logger, timeoutMs);
    return {
      rawStore: (ns) => sqlite.rawStore(ns),
      // SQLite means a single instance: locks and dedupe live in this process.
      lockBackend: new MemoryLockBackend(),
      dedupe: new MemoryDedupe(),
      ping: () => sqlite.ping(Math.min(timeoutMs, PING_TIMEOUT_MS)),
      problem: () => sqlite.problem(),
      close: () => sqlite.close(),
    };
  }
  const { openRedisBackend } = await import('./redis-backend.js');
  return openRedisBackend(target.url, prefix, logger, {
    timeoutMs,
    pingTimeoutMs: Math.min(timeoutMs, PING_TIMEOUT_MS),
  });
}

/** memory://: one Map per namespace; Keyv stores the expiry inside each value and checks it on read. */
function memoryRawStore(): RawStore {
  const map = new Map<string, unknown>();
  return {
    get: async (key) => map.get(key),
    set: async (key, value) => {
      map.set(key, value);
    },
    delete: async (key) => map.delete(key),
    clear: async () => map.clear(),
  };
}
