/** What the Socket Mode pool is given: the app token, its limits and its timings. */
import type { Logger } from '../../../src/logger.js';
import type { SurfaceConnection } from '../../../src/ops/surface-connection.js';

/** Slack allows at most 10 open Socket Mode connections per app (all instances together). */
export const MAX_APP_CONNECTIONS = 10;

export interface SocketTimings {
  /** The client pings every third of this and drops a connection whose pong is this late. */
  pingTimeoutMs: number;
  /** Backoff between failed attempts: from min, doubling, capped at max (then jittered 50–100 %). */
  retryMinMs: number;
  retryMaxMs: number;
  /** A connection that has not said `hello` this long after opening is given up on. */
  helloTimeoutMs: number;
  /** One warn line per this interval for repeated connection failures. */
  failureLogIntervalMs: number;
  /** Slack wants an ack within 3 s; an envelope no listener acked by then is acked here. */
  ackDeadlineMs: number;
  /** stop() waits this long for each close handshake (upstream's own fallback is 30 s). */
  closeWaitMs: number;
}

export const DEFAULT_SOCKET_TIMINGS: SocketTimings = {
  pingTimeoutMs: 5_000,
  retryMinMs: 1_000,
  retryMaxMs: 30_000,
  helloTimeoutMs: 10_000,
  failureLogIntervalMs: 30_000,
  ackDeadlineMs: 2_500,
  closeWaitMs: 3_000,
};

export interface SocketPoolOptions {
  appToken: string;
  /** SLACK_API_URL (Slack's own by default). */
  apiUrl: string | undefined;
  logger: Logger;
  /** Connections kept open (SLACK_SOCKET_CONNECTIONS). */
  connections: number;
  /** start() gives up after this long without a ready connection (SLACK_STARTUP_TIMEOUT). */
  startupTimeoutMs: number;
  /** The store backend: with a per-instance one, a second instance answers events twice. */
  storeBackend: 'memory' | 'sqlite' | 'redis';
  /** Where readiness is reported (/readyz, connection metrics). */
  connection?: SurfaceConnection;
  timings?: Partial<SocketTimings>;
}
