/**
 * The operations HTTP server on PORT (not started for the terminal chat):
 *   GET /healthz  liveness plus a store round trip:
 *                 200 {"status":"ok","store":"ok"} | 503 {"status":"unhealthy","store":"unreachable"}
 *                 503 {"status":"draining",…} once shutdown began, so a load balancer stops routing here.
 *   GET /metrics  Prometheus text exposition.
 * Other paths go to `extraRoutes` (exact path) and then to `fallback` — in Slack HTTP mode the Bolt
 * receiver's request listener, so Slack events and the ops endpoints share one port.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import type { Stores } from '../store/types.js';
import type { ScoutMetrics } from './metrics.js';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** Open keep-alive connections get this long to finish before close() cuts them. */
const CLOSE_GRACE_MS = 2_000;

export interface OpsServerOptions {
  /** 0 picks a free port (tests). */
  port: number;
  /** Interface to bind; default all interfaces (containers). Tests pass 127.0.0.1. */
  host?: string;
  stores: Pick<Stores, 'ping'>;
  metrics: ScoutMetrics;
  logger: Logger;
  /** Handlers by exact path (any method), tried after /healthz and /metrics. */
  extraRoutes?: Record<string, RequestHandler>;
  /** Everything else (e.g. Bolt's HTTPReceiver.requestListener); without it → 404. */
  fallback?: RequestHandler;
}

export interface OpsServer {
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** From now on /healthz answers 503 "draining" (SIGTERM: load balancers stop sending work). */
  markDraining(): void;
  close(): Promise<void>;
}

export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const { stores, metrics, logger } = options;
  const log = logger.child({ component: 'ops-http' });
  let draining = false;

  const health = async (res: ServerResponse) => {
    const storeOk = await stores.ping().catch(() => false);
    const status = draining ? 'draining' : storeOk ? 'ok' : 'unhealthy';
    if (!storeOk) log.warn('health check: store unreachable');
    sendJson(res, status === 'ok' ? 200 : 503, { status, store: storeOk ? 'ok' : 'unreachable' });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const readOnly = req.method === 'GET' || req.method === 'HEAD';
    if (path === '/healthz' && readOnly) return health(res);
    if (path === '/metrics' && readOnly) {
      const body = await metrics.render();
      res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    const route = options.extraRoutes?.[path];
    if (route) return route(req, res);
    if (options.fallback) return options.fallback(req, res);
    sendJson(res, 404, { error: 'not found' });
  };

  const server: Server = createServer((req, res) => {
    Promise.resolve(handle(req, res)).catch((err: unknown) => {
      log.error({ err, path: req.url }, 'ops request failed');
      metrics.recordError('http');
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => log.error({ err }, 'ops server error'));
  const port = (server.address() as AddressInfo).port;
  log.info({ port }, 'ops server listening (/healthz, /metrics)');

  let closing: Promise<void> | undefined;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    markDraining() {
      draining = true;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      });
      return closing;
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
