/**
 * A benchmark search API speaking Tavily's protocol (`POST /search`, Bearer key): answers after a
 * fixed latency with distinct results per query and records each request's turn and duration, the
 * search time Scout waited.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { epochNow, TURN_TAG } from './fake-llm.js';

export const BENCH_TAVILY_KEY = 'tvly-bench-key';
/** Results per answer, like Tavily's default page. */
const RESULTS = 5;
/** Snippet length per result, about what Tavily returns. */
const SNIPPET_CHARS = 300;

export interface SearchRecord {
  turn: string;
  start: number;
  end: number;
}

export interface FakeSearch {
  readonly url: string;
  latencyMs: number;
  records: SearchRecord[];
  close(): Promise<void>;
}

function results(query: string) {
  const slug = query.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  return Array.from({ length: RESULTS }, (_, i) => ({
    title: `Result ${i + 1} for ${query}`,
    url: `https://example.com/${slug}/${i + 1}`,
    content: `Snippet ${i + 1} about ${query}. `.repeat(20).slice(0, SNIPPET_CHARS),
    score: 1 - i / 10,
  }));
}

export async function startFakeSearch(latencyMs: number): Promise<FakeSearch> {
  const fake: FakeSearch = { url: '', latencyMs, records: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    const start = epochNow();
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      if (req.headers.authorization !== `Bearer ${BENCH_TAVILY_KEY}`) {
        res.writeHead(401).end();
        return;
      }
      let query = '';
      try {
        query = String(JSON.parse(Buffer.concat(parts).toString('utf8')).query ?? '');
      } catch {
        res.writeHead(400).end();
        return;
      }
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ query, results: results(query) }));
        fake.records.push({ turn: TURN_TAG.exec(query)?.[0] ?? 'unknown', start, end: epochNow() });
      }, fake.latencyMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
