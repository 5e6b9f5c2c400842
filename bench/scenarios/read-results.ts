/**
 * Scenario 15: what reading the top results of a search costs an agent turn, for AGENT_READ_RESULTS
 * 0–3 — the measurement its default rests on. One search round as the agent runs it (runToolCalls:
 * the real web_search and fetch_url tools, the real reader and its worker pool) against a search API
 * whose results point at corpus pages (test/fixtures/pages) served with a realistic time to first byte.
 * Per setting: the round's wall time, and the characters and o200k tokens the models then read (the
 * round's observations, as the answer model gets them), and whether a fact planted in a page's middle
 * — past any snippet — reached them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { formatObservations } from '../../src/modes/turn/observations.js';
import { loadManifest, pageBytes } from '../../test/reader/page-fixtures.js';
import { benchAgentTools, benchSearchRound } from '../agent-tools.js';
import type { BenchContext, ScenarioResult } from '../context.js';
import { summarize } from '../metrics.js';

/** A news site's time to first byte, about (the page itself then arrives at once on loopback). */
const PAGE_LATENCY_MS = 400;
const SEARCH_LATENCY_MS = 300;
const SETTINGS = [0, 1, 2, 3];
const ROUNDS = 6;
/** Planted in the middle of every served article: found only by reading the page. */
const FACT = 'The harbour ferry carried 7,341 passengers on its busiest day.';

interface Served {
  server: Server;
  base: string;
}

async function serve(handler: Parameters<typeof createServer>[1]): Promise<Served> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export async function readResults(ctx: BenchContext): Promise<ScenarioResult> {
  const articles = loadManifest().filter(
    (p) => p.contentType.startsWith('text/html') && /utf-8/i.test(p.contentType),
  );
  const pages = await serve((req, res) => {
    const index = Number(/\/page\/(\d+)/.exec(req.url ?? '')?.[1] ?? -1);
    const entry = articles[index % articles.length];
    if (!entry) {
      res.writeHead(404).end();
      return;
    }
    // The fact goes after the page's middle paragraph, where no snippet reaches.
    const html = Buffer.from(pageBytes(entry)).toString('utf8');
    const paragraphs = [...html.matchAll(/<\/p>/g)];
    const middle = paragraphs[Math.floor(paragraphs.length / 2)]?.index ?? html.indexOf('</body>');
    const planted = `${html.slice(0, middle)}</p><p>${FACT}${html.slice(middle)}`;
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(planted);
    }, PAGE_LATENCY_MS);
  });
  let round = 0;
  const search = await serve((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        const first = round++ * 5;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            results: Array.from({ length: 5 }, (_, i) => ({
              title: `Result ${i + 1}`,
              url: `${pages.base}/page/${first + i}`,
              content:
                'A snippet of about two hundred characters that says what the page is about but not the figure.',
            })),
          }),
        );
      }, SEARCH_LATENCY_MS),
    );
  });
  const tools = benchAgentTools(search.base);

  const rows: Array<[string, string]> = [];
  const data: Record<string, unknown> = {
    pageLatencyMs: PAGE_LATENCY_MS,
    searchLatencyMs: SEARCH_LATENCY_MS,
  };
  ctx.log(`scenario 15: one search round × ${ROUNDS} for AGENT_READ_RESULTS ${SETTINGS.join(', ')}`);
  try {
    for (const count of SETTINGS) {
      const walls: number[] = [];
      const tokens: number[] = [];
      let found = 0;
      for (let i = 0; i < ROUNDS + 1; i++) {
        const controller = new AbortController();
        const started = performance.now();
        const results = await benchSearchRound(tools, {
          query: `harbour ferry passengers ${round}`,
          sessionKey: `bench-${count}-${i}`,
          readCount: count,
          signal: controller.signal,
        });
        const wall = performance.now() - started;
        // The first round starts the reader's worker: not counted.
        if (i === 0) continue;
        const observations = results.flatMap((r) => [r.observation, ...(r.pages ?? [])]);
        const text = formatObservations(observations);
        walls.push(wall);
        tokens.push(countTokens(text));
        if (text.includes(FACT)) found++;
      }
      const wall = summarize(walls);
      const tok = summarize(tokens);
      rows.push([
        `AGENT_READ_RESULTS=${count}`,
        `round p50 ${wall.p50.toFixed(0)} ms · observations ${tok.p50.toFixed(0)} tokens · planted fact reached the models in ${found}/${ROUNDS} rounds`,
      ]);
      data[`read${count}`] = { wallMs: wall, tokens: tok, found, rounds: ROUNDS };
    }
  } finally {
    await Promise.all(
      [pages, search].map(
        ({ server }) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
  }
  return {
    id: 15,
    name: `Reading search results in the round (page TTFB ${PAGE_LATENCY_MS} ms, search ${SEARCH_LATENCY_MS} ms)`,
    rows,
    targets: [],
    data,
  };
}
