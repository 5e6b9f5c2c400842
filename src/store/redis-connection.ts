import { createClient } from '@keyv/redis';
import type { Logger } from '../logger.js';
import { throttledErrorLog } from './bounded.js';

/** A failed TCP connect gives up after this long, so a blackholed host does not stall startup. */
export const REDIS_CONNECT_TIMEOUT_MS = 2_000;
/** Reconnect backoff cap: when Redis comes back, the next operation works within about this long. */
export const REDIS_MAX_RECONNECT_DELAY_MS = 2_000;
/** First reconnect delay; doubles per attempt up to the cap. */
const REDIS_FIRST_RECONNECT_DELAY_MS = 100;
/** createStores waits at most this long (or one operation bound) for the first connection, then starts anyway. */
const REDIS_STARTUP_WAIT_MS = 2_000;

export type RedisClient = ReturnType<typeof createRedisClient>;

function createRedisClient(url: string) {
  return createClient({
    url,
    // While disconnected, commands reject at once ("The client is offline") instead of queueing
    // until Redis returns: a turn fails with a friendly store error rather than hanging.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
      // Always a number: the client keeps reconnecting in the background forever, so the next
      // operation after an outage succeeds without a restart.
      reconnectStrategy: (retries: number) =>
        Math.min(REDIS_FIRST_RECONNECT_DELAY_MS * 2 ** retries, REDIS_MAX_RECONNECT_DELAY_MS) +
        Math.floor(Math.random() * 100),
    },
  });
}

/** One shared Redis connection for every namespace, the locks and the dedupe markers. */
export interface RedisConnection {
  readonly client: RedisClient;
  ping(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export async function openRedis(url: string, logger: Logger, timeoutMs: number): Promise<RedisConnection> {
  const client = createRedisClient(url);
  const logError = throttledErrorLog((message) =>
    logger.warn({ err: message }, 'redis connection error (retrying in the background)'),
  );
  // Without an 'error' listener node-redis would crash the process on the first socket error.
  client.on('error', logError);
  client.on('ready', () => logger.debug('redis ready'));

  const connecting = client.connect().then(
    () => true,
    (err: unknown) => {
      logError(err);
      return false;
    },
  );
  let timer: NodeJS.Timeout | undefined;
  let onFirstError: (() => void) | undefined;
  const connected = await Promise.race([
    connecting,
    // A refused connection shows up as an 'error' at once; no need to wait out the timer.
    new Promise<false>((resolve) => {
      onFirstError = () => resolve(false);
      client.once('error', onFirstError);
      timer = setTimeout(() => resolve(false), Math.min(REDIS_STARTUP_WAIT_MS, timeoutMs));
    }),
  ]);
  clearTimeout(timer);
  if (onFirstError) client.off('error', onFirstError);
  if (!connected) logger.warn('redis not reachable at startup; store operations fail until it is');

  return {
    client,
    async ping(timeoutMs) {
      if (!client.isReady) return false;
      let pingTimer: NodeJS.Timeout | undefined;
      try {
        const reply = await Promise.race([
          client.ping(),
          new Promise<never>((_, reject) => {
            pingTimer = setTimeout(() => reject(new Error('ping timed out')), timeoutMs);
          }),
        ]);
        return reply === 'PONG';
      } catch {
        return false;
      } finally {
        clearTimeout(pingTimer);
      }
    },
    async close() {
      if (!client.isOpen) return;
      if (!client.isReady) {
        // Nothing to flush; close() would wait for a connection that may never come.
        destroyQuietly(client);
        return;
      }
      // close() waits for pending replies; a server that stopped answering would hold it forever.
      let closeTimer: NodeJS.Timeout | undefined;
      await Promise.race([
        client.close().catch(() => destroyQuietly(client)),
        new Promise<void>((resolve) => {
          closeTimer = setTimeout(
            () => {
              destroyQuietly(client);
              resolve();
            },
            Math.min(REDIS_CONNECT_TIMEOUT_MS, timeoutMs),
          );
        }),
      ]);
      clearTimeout(closeTimer);
    },
  };
}

/** destroy() throws when close() already began; either way the socket ends up gone. */
function destroyQuietly(client: RedisClient): void {
  try {
    client.destroy();
  } catch {
    // already closing
  }
}
