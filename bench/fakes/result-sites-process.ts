/**
 * Child-process entry for scenario 19's sites (forked by read-under-load.ts through child-rpc.ts): a
 * Tavily-compatible search API and the pages its results point at, in a process of their own so that
 * they keep their pace however busy Scout's main thread is (a real site does not wait for it).
 *
 * `{ op: 'start', files, contentTypes, searchMs, pageMs, bodyMs, bodyChunks, perSearch }` → the two base
 * URLs. Page N is `files[N]`, sent `pageMs` after the request in `bodyChunks` parts over `bodyMs`. A
 * query holding `round R` gets five results whose first `perSearch` are pages R·perSearch onwards, so
 * concurrent rounds read distinct pages. `{ op: 'timings' }` → when each search and page was asked for,
 * and each page's body was sent whole (ms since `{ op: 'mark' }`, or the start); `{ op: 'close' }`.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveRpc } from '../child-rpc.js';

export interface ResultSitesConfig {
  files: string[];
  /** Content-Type per file ('' sends none). */
  contentTypes: string[];
  searchMs: number;
  pageMs: number;
  bodyMs: number;
  bodyChunks: number;
  perSearch: number;
}

export interface ResultSitesTimings {
  searched: number[];
  asked: number[];
  sent: number[];
}

interface Request {
  id: number;
  op: 'start' | 'mark' | 'timings' | 'close';
  config?: ResultSitesConfig;
}

const servers: Server[] = [];
const timings: ResultSitesTimings = { searched: [], asked: [], sent: [] };
let origin = performance.now();

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function start(config: ResultSitesConfig): Promise<{ searchBase: string; pageBase: string }> {
  const bodies = config.files.map((file) => readFileSync(file));
  origin = performance.now();
  const pageBase = await listen((req, res) => {
    const index = Number(/\/page\/(\d+)/.exec(req.url ?? '')?.[1] ?? -1);
    const body = bodies[index];
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    timings.asked.push(performance.now() - origin);
    res.on('finish', () => timings.sent.push(performance.now() - origin));
    setTimeout(() => {
      const type = config.contentTypes[index];
      res.writeHead(200, type ? { 'content-type': type } : {});
      const step = Math.ceil(body.length / config.bodyChunks);
      let sent = 0;
      const next = () => {
        if (res.destroyed) return;
        const chunk = body.subarray(sent, sent + step);
        sent += chunk.length;
        if (sent >= body.length) res.end(chunk);
        else {
          res.write(chunk);
          setTimeout(next, config.bodyMs / config.bodyChunks);
        }
      };
      next();
    }, config.pageMs);
  });
  const searchBase = await listen((req, res) => {
    timings.searched.push(performance.now() - origin);
    let text = '';
    req.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () =>
      setTimeout(() => {
        const query = (JSON.parse(text || '{}') as { query?: string }).query ?? '';
        const round = Number(/round (\d+)/.exec(query)?.[1] ?? 0);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            results: Array.from({ length: 5 }, (_, i) => ({
              title: `Result ${i + 1}`,
              url: `${pageBase}/page/${(round * config.perSearch + i) % bodies.length}`,
              content: 'A snippet of about two hundred characters that says what the page is about.',
            })),
          }),
        );
      }, config.searchMs),
    );
  });
  return { searchBase, pageBase };
}

async function answer(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'start':
      return start(request.config as ResultSitesConfig);
    case 'mark':
      origin = performance.now();
      return null;
    case 'timings':
      return timings;
    case 'close':
      for (const server of servers) {
        server.close();
        server.closeAllConnections();
      }
      setImmediate(() => process.exit(0));
      return null;
  }
}

serveRpc(answer);
