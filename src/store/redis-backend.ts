/**
 * The Redis half of the store: Keyv adapters, locks and dedupe over one shared client. Loaded by
 * dynamic import only when STORE_URL names Redis.
 */
import KeyvRedis from '@keyv/redis';
import type { Logger } from '../logger.js';
import type { BackendParts } from './backend-parts.js';
import { RedisBroadcast } from './broadcast.js';
import { RedisDedupe } from './dedupe.js';
import { openRedis } from './redis-connection.js';
import { RedisLockBackend } from './redis-lock-backend.js';
import { RedisPaceBudget } from './redis-pace-budget.js';
import { RedisUsageCounters } from './redis-usage-counters.js';

export async function openRedisBackend(
  url: string,
  prefix: string,
  logger: Logger,
  bounds: { timeoutMs: number; pingTimeoutMs: number },
): Promise<BackendParts> {
  const { timeoutMs } = bounds;
  const redis = await openRedis(url, logger, timeoutMs);
  const broadcast = new RedisBroadcast(redis.client, `${prefix}:broadcast:`, logger);
  return {
    rawStore: (ns) => {
      const adapter = new KeyvRedis(redis.client, {
        namespace: ns,
        throwOnErrors: true,
        throwOnConnectError: true,
      });
      // Connection errors are logged once by the shared client; the adapter re-emits them.
      adapter.on('error', () => {});
      return adapter;
    },
    lockBackend: new RedisLockBackend(redis.client, `${prefix}:lock::`, timeoutMs),
    dedupe: new RedisDedupe(redis.client, `${prefix}:dedupe::`, timeoutMs),
    usage: new RedisUsageCounters(redis.client, `${prefix}:usage:`, timeoutMs),
    broadcast,
    paceBudget: new RedisPaceBudget(redis.client, `${prefix}:pace:`, timeoutMs),
    ping: () => redis.ping(bounds.pingTimeoutMs),
    close: async () => {
      await broadcast.close();
      await redis.close();
    },
  };
}
