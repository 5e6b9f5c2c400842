/**
 * Scenario 8: fetch_url's HTML-to-text conversion on 512 KB pages, hostile (the attack kinds of
 * issue 14) and normal: throughput in MB/s, the whole conversion's wall time (target < 1 s each) and
 * the longest the event loop waited meanwhile (the conversion yields in slices).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { htmlToText } from '../../src/tools/html-to-text.js';
import { HOSTILE_PAGES, NORMAL_PAGE } from '../../test/helpers/hostile-pages.js';
import type { BenchContext, ScenarioResult } from '../context.js';
import { summarize } from '../metrics.js';

const TARGET_MS = 1_000;

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
        target: 'No conversion blocks the event loop > 50 ms at a time',
        measured: `longest stall ${worstStall.toFixed(1)} ms`,
        met: worstStall < 50,
      },
    ],
    data,
  };
}
