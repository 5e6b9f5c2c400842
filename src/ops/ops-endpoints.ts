/**
 * The operations endpoints, independent of who serves them: our own server (`http-server.ts`) or, in
 * Slack HTTP mode, Bolt's HTTP receiver as custom routes (so Slack events and ops share PORT).
 *   GET /livez    200 {"status":"ok"} while the process runs (draining included): restart only when
 *                 this fails, since restarting cannot fix a platform or store outage.
 *   GET /readyz   every readiness check (readiness.ts: store, each surface's connection):
 *                 200 {"status":"ok","checks":{…}} | 503 {"status":"unhealthy","failing":["slack"],"checks":{…}};
 *                 503 {"status":"draining",…} once shutdown began, so a load balancer stops routing here.
 *   GET /healthz  the same answer as /readyz (the name orchestrators and the Docker HEALTHCHECK use).
 *   GET /metrics  Prometheus text exposition.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import type { ScoutMetrics } from './metrics.js';
import type { Readiness } from './readiness.js';

/** A failing check is logged at most this often (probes come every few seconds). */
const FAILURE_LOG_INTERVAL_MS = 60_000;

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** Same shape as Bolt's `CustomRoute`, so the routes can be handed to the Slack receiver as they are. */
export interface OpsRoute {
  path: string;
  method: string[];
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface OpsEndpointOptions {
  /** The checks behind /readyz and /healthz (store, surfaces). */
  readiness: Readiness;
  metrics: ScoutMetrics;
  logger: Logger;
}

export interface OpsEndpoints {
  readonly routes: OpsRoute[];
  /** From now on /readyz and /healthz answer 503 "draining" (SIGTERM); /livez stays 200. */
  markDraining(): void;
}

export function createOpsEndpoints(options: OpsEndpointOptions): OpsEndpoints {
  const { readiness, metrics } = options;
  const log = options.logger.child({ component: 'ops-http' });
  let draining = false;
  let lastFailureLog = 0;
  let lastFailing = '';

  const ready: RequestHandler = async (_req, res) => {
    const report = await readiness.evaluate();
    const status = draining ? 'draining' : report.ok ? 'ok' : 'unhealthy';
    const failing = report.failing.join(',');
    // Logged when what fails changes, else once a minute: probes must not flood the log.
    if (!report.ok && (failing !== lastFailing || Date.now() - lastFailureLog >= FAILURE_LOG_INTERVAL_MS)) {
      lastFailureLog = Date.now();
      log.warn({ failing: report.failing, checks: report.checks }, 'not ready');
    }
    lastFailing = failing;
    sendJson(res, status === 'ok' ? 200 : 503, {
      status,
      ...(report.ok ? {} : { failing: report.failing }),
      checks: report.checks,
    });
  };
  const live: RequestHandler = (_req, res) => sendJson(res, 200, { status: 'ok' });
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
      { path: '/healthz', method: ['GET', 'HEAD'], handler: safe(ready) },
      { path: '/readyz', method: ['GET', 'HEAD'], handler: safe(ready) },
      { path: '/livez', method: ['GET', 'HEAD'], handler: safe(live) },
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
