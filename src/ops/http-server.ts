/**
 * The operations HTTP server on PORT (not started for the terminal chat, nor in Slack HTTP mode,
 * where Bolt's receiver owns PORT and serves the same endpoints as custom routes — see main.ts).
 * Serves /livez, /readyz, /healthz and /metrics (ops-endpoints.ts) plus any `extraRoutes`; everything
 * else is 404.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenError } from '../http/listen-error.js';
import {
  type OpsEndpointOptions,
  type OpsEndpoints,
  type OpsRoute,
  createOpsEndpoints,
  sendJson,
} from './ops-endpoints.js';

/** Open keep-alive connections get this long to finish before close() cuts them. */
const CLOSE_GRACE_MS = 2_000;

export interface OpsServerOptions extends OpsEndpointOptions {
  /** 0 picks a free port (tests). */
  port: number;
  /** Interface to bind; default all interfaces (containers). Tests pass 127.0.0.1. */
  host?: string;
  /** More routes (same shape as /healthz and /metrics). */
  extraRoutes?: OpsRoute[];
}

export interface OpsServer extends Pick<OpsEndpoints, 'markDraining'> {
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  close(): Promise<void>;
}

export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const endpoints = createOpsEndpoints(options);
  const routes = [...endpoints.routes, ...(options.extraRoutes ?? [])];
  const log = options.logger.child({ component: 'ops-http' });

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const route = routes.find((r) => r.path === path);
    if (!route) return sendJson(res, 404, { error: 'not found' });
    if (!route.method.includes(req.method ?? 'GET')) {
      res.setHeader('allow', route.method.join(', '));
      return sendJson(res, 405, { error: 'method not allowed' });
    }
    route.handler(req, res);
  });

  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error) => reject(listenError(err, options.port, 'Health and metrics server'));
    server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  server.on('error', (err) => log.error({ err }, 'ops server error'));
  const port = (server.address() as AddressInfo).port;
  log.info({ port }, 'ops server listening (/livez, /readyz, /healthz, /metrics)');

  let closing: Promise<void> | undefined;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    markDraining: () => endpoints.markDraining(),
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
