/**
 * Scenario 8: fetch_url's HTML-to-text conversion on 512 KB pages, hostile (the attack kinds of
 * issue 14) and normal: throughput in MB/s, the whole conversion's wall time (target < 1 s each) and
 * the longest the event loop waited meanwhile (the conversion yields in slices). Then search results
 * whose titles and snippets are 64 KB of hostile markup each (issue 27 §8), cleaned as providers do.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cleanResults } from '../../src/search/clean-results.js';
import { htmlToText } from '../../src/tools/html-to-text.js';
import { HOSTILE_PAGES, NORMAL_PAGE } from '../../test/helpers/hostile-pages.js';
import type { BenchContext, ScenarioResult } from '../context.js';
import { summarize } from '../metrics.js';

const TARGET_MS = 1_000;
/** A whole result list of hostile 64 KB titles and snippets is cleaned synchronously: keep it short. */
const SNIPPETS_TARGET_MS = 50;
const SNIPPET_BYTES = 64 * 1024;

/** Five results, each title and snippet 64 KB of one attack kind after a line of real text. */
function hostileResults() {
  return ['<', '<a ', '<!--', '&amp;&#x41;&lt;&', '<b a="x" '].map((unit, i) => {
    const fill = (lead: string) =>
      (lead + unit.repeat(SNIPPET_BYTES / unit.length + 1)).slice(0, SNIPPET_BYTES);
    return { title: fill(`Result ${i} `), url: `https://example.com/${i}`, snippet: fill('Useful text. ') };
  });
}

/** cleanResults on the hostile list: ms per list (p50, max) over `runs`, after one run for the JIT. */
async function snippetRow(runs: number): Promise<{ ms: ReturnType<typeof summarize>; bytes: number }> {
  const raw = hostileResults();
  await cleanResults(raw, 5);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await cleanResults(raw, 5);
    times.push(performance.now() - started);
  }
  return { ms: summarize(times), bytes: raw.length * 2 * SNIPPET_BYTES };
}

export async function htmlConversion(ctx: BenchContext): Promise<ScenarioResult> {
  const runs = ctx.options.htmlRuns;
  const pages: Array<[string, string]> = [['normal article', NORMAL_PAGE], ...Object.entries(HOSTILE_PAGES)];
  const rows: Array<[string, string]> = [];
  const data: Record<string, unknown> = {};
  let slowest = 0;
  let worstStall = 0;
  ctx.log(`scenario 8: ${pages.length} pages × ${runs} conversions`);
  for (const [name, html] of pages) {
    const megabytes = Buffer.byteLength(html) / 1e6;
    // One run first for the JIT, then the measured ones.
    await htmlToText(html, { maxChars: 8_000 });
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await htmlToText(html, { maxChars: 8_000 });
      times.push(performance.now() - started);
    }
    delay.disable();
    const ms = summarize(times);
    const stallMs = delay.max / 1e6;
    slowest = Math.max(slowest, ms.max);
    if (name !== 'normal article') worstStall = Math.max(worstStall, stallMs);
    rows.push([
      name,
      `${(megabytes / (ms.p50 / 1000)).toFixed(1)} MB/s · ${ms.p50.toFixed(1)} ms p50 (max ${ms.max.toFixed(1)}) · longest event-loop stall ${stallMs.toFixed(1)} ms`,
    ]);
    data[name] = { bytes: Buffer.byteLength(html), ms, mbPerSecond: megabytes / (ms.p50 / 1000), stallMs };
  }
  const snippets = await snippetRow(runs * 4);
  rows.push([
    'search results: 5 × (64 KB title + 64 KB snippet), hostile',
    `${snippets.ms.p50.toFixed(2)} ms p50 per result list (max ${snippets.ms.max.toFixed(2)}); input cut to 4 KB per field`,
  ]);
  data['search results, hostile 64 KB fields'] = snippets;
  return {
    id: 8,
    name: `HTML to text, 512 KB pages (${runs} runs each)`,
    rows,
    targets: [
      {
        target: 'Each 512 KB hostile page converts in < 1 s',
        measured: `slowest ${slowest.toFixed(0)} ms`,
        met: slowest < TARGET_MS,
      },
      {
        target: 'A result list of hostile 64 KB snippets is cleaned in < 50 ms (p50)',
        measured: `p50 ${snippets.ms.p50.toFixed(1)} ms`,
        met: snippets.ms.p50 < SNIPPETS_TARGET_MS,
      },
      {
        target: 'No conversion blocks the event loop > 50 ms at a time',
        measured: `longest stall ${worstStall.toFixed(1)} ms`,
        met: worstStall < 50,
      },
    ],
    data,
  };
}
