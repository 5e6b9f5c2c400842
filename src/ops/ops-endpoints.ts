/**
 * The operations endpoints, independent of who serves them: our own server (`http-server.ts`) or, in
 * Slack HTTP mode, Bolt's HTTP receiver as custom routes (so Slack events and ops share PORT).
 *   GET /healthz  liveness plus a store round trip:
 *                 200 {"status":"ok","store":"ok"} | 503 {"status":"unhealthy","store":"unreachable"};
 *                 503 {"status":"draining",…} once shutdown began, so a load balancer stops routing here.
 *   GET /metrics  Prometheus text exposition.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import type { Stores } from '../store/types.js';
import type { ScoutMetrics } from './metrics.js';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** Same shape as Bolt's `CustomRoute`, so the routes can be handed to the Slack receiver as they are. */
export interface OpsRoute {
  path: string;
  method: string[];
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface OpsEndpointOptions {
  stores: Pick<Stores, 'ping'>;
  metrics: ScoutMetrics;
  logger: Logger;
}

export interface OpsEndpoints {
  readonly routes: OpsRoute[];
  /** From now on /healthz answers 503 "draining" (SIGTERM). */
  markDraining(): void;
}

export function createOpsEndpoints(options: OpsEndpointOptions): OpsEndpoints {
  const { stores, metrics } = options;
  const log = options.logger.child({ component: 'ops-http' });
  let draining = false;

  const health: RequestHandler = async (_req, res) => {
    const storeOk = await stores.ping().catch(() => false);
    const status = draining ? 'draining' : storeOk ? 'ok' : 'unhealthy';
    if (!storeOk) log.warn('health check: store unreachable');
    sendJson(res, status === 'ok' ? 200 : 503, { status, store: storeOk ? 'ok' : 'unreachable' });
  };
  const exposition: RequestHandler = async (req, res) => {
    const body = await metrics.render();
    res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  // Bolt calls handlers without awaiting them: failures are answered here, never left hanging.
  const safe =
    (handler: RequestHandler) =>
    (req: IncomingMessage, res: ServerResponse): void => {
      Promise.resolve()
        .then(() => handler(req, res))
        .catch((err: unknown) => {
          log.error({ err, path: req.url }, 'ops request failed');
          metrics.recordError('http');
          if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
          else res.end();
        });
    };

  return {
    routes: [
      { path: '/healthz', method: ['GET', 'HEAD'], handler: safe(health) },
      { path: '/metrics', method: ['GET', 'HEAD'], handler: safe(exposition) },
    ],
    markDraining() {
      draining = true;
    },
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
