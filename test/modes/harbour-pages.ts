/**
 * The Harbour Courier's pages on a loopback server, for agent turns that read them with the real
 * fetch_url and reader: a long history of numbered paragraphs (three of fetch_url's parts) and
 * whatever pages a test adds. The reader's worker starts before the first fetch (under tsx on a busy
 * machine its start can take a good part of fetch_url's 10 s).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { warmReader } from '../reader/warm-reader.js';

/** `n` paragraphs of the harbour's history, numbered from 0. */
export const historyParagraphs = (n: number): string =>
  Array.from(
    { length: n },
    (_, i) =>
      `<p>Paragraph ${i} of the history: the harbour authority met again about the crossing, and the minutes record another long debate about tolls, tides and the ferry timetable that nobody wanted to change.</p>`,
  ).join('\n');

/** About 45,000 characters: three of fetch_url's parts, many more of a result page's budget. */
export const LONG_HISTORY = `<!doctype html><html><head><title>The long history | Harbour Courier</title></head><body>
<article><h1>The long history</h1>${historyParagraphs(240)}</article></body></html>`;

/** A page's HTML, or `hang`: a request the server never answers. */
export type PageRoute = string | 'hang';

export interface LoopbackPages {
  /** `http://127.0.0.1:port`, once the server listens. */
  readonly base: string;
  /** The paths requested, in order (a test empties it when it counts its own). */
  readonly hits: string[];
}

/** Serves `routes` (path → page) for the file's tests; other paths are 404. */
export function useLoopbackPages(routes: Record<string, PageRoute>): LoopbackPages {
  let server: Server;
  const pages = { base: '', hits: [] as string[] };
  beforeAll(async () => {
    await warmReader();
    server = createServer((req, res) => {
      pages.hits.push(req.url ?? '');
      const page = routes[req.url ?? ''];
      if (page === 'hang') return;
      if (page === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pages.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return pages;
}
