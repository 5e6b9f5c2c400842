/**
 * Scenario 3: many idle conversations in the store (written with the core's own `appendTurn`), then
 * turns with them present: retained memory, SQLite file size, write time and per-turn overhead.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import type { ChatMessage } from '../../src/llm/types.js';
import { silentLogger } from '../../src/logger.js';
import { appendTurn } from '../../src/store/conversation-store.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';
import { type BenchContext, fakeSpeed, mib, pct, type ScenarioResult, withScout } from '../context.js';
import { summarize } from '../metrics.js';
import { sqliteBytes, storeTarget } from '../store-targets.js';
import { runSequential } from '../turns.js';

/** Histories written at once: enough to keep the store busy, few enough not to queue on locks. */
const WRITE_PARALLELISM = 32;
/** Channels the histories are spread over (round robin, so parallel writers rarely share an index lock). */
const CHANNELS = 100;
/** A typical short exchange: the question and a ~1 KB answer. */
const ANSWER = 'Scout found three sources that agree on the main points. '.repeat(18);
const DAY_MS = 24 * 3600_000;

/** Full GC before a memory reading, so RSS shows what is retained, not garbage. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  gc?.();
}

/** Writes `count` histories through the core's own `appendTurn`; returns the time it took. */
async function writeHistories(stores: Stores, count: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const channel = `slack:T00FAKE00AA:CIDLE${i % CHANNELS}`;
      const messages: ChatMessage[] = [
        { role: 'user', content: `Idle question number ${i}: what is new this week?` },
        { role: 'assistant', content: ANSWER },
      ];
      await appendTurn(stores, `${channel}:${1_700_000_000 + i}.000100`, channel, messages, DAY_MS);
    }
  };
  await Promise.all(Array.from({ length: WRITE_PARALLELISM }, worker));
  return performance.now() - started;
}

export async function idleSessions(ctx: BenchContext): Promise<ScenarioResult> {
  const { options } = ctx;
  const n = options.idleSessions;
  await ctx.fakes.configure(fakeSpeed(options, options.tokensPerSecond));
  const rows: Array<[string, string]> = [];
  const data: Record<string, unknown> = {};

  // SQLite: histories written, store closed, then Scout opens the file with them present.
  const sqlite = await storeTarget('sqlite', options.redisUrl);
  try {
    collectGarbage();
    const rssStart = process.memoryUsage().rss;
    ctx.log(`scenario 3: writing ${n} histories to SQLite`);
    const writer = await createStores({ url: sqlite.url, sessionTtlMs: DAY_MS, logger: silentLogger });
    const writeMs = await writeHistories(writer, n).finally(() => writer.close());
    const bytes = await sqliteBytes(sqlite.file!);
    collectGarbage();
    const rssBefore = process.memoryUsage().rss;
    const result = await withScout(ctx, { storeUrl: sqlite.url }, (bench) =>
      runSequential(bench, ctx.fakes, options.idleTurns),
    );
    const ok = result.turns.filter((t) => !t.error);
    const overhead = summarize(ok.map((t) => t.overheadMs));
    const own = summarize(ok.map((t) => t.ownMs));
    rows.push(
      [
        'SQLite: write time',
        `${(writeMs / 1000).toFixed(1)} s (${((writeMs / n) * 1000).toFixed(0)} µs per history)`,
      ],
      ['SQLite: file size', `${mib(bytes)} (${(bytes / n).toFixed(0)} B per session)`],
      [
        'SQLite: RSS with sessions present',
        `${mib(rssBefore)} (${mib(rssStart)} before writing), peak during turns ${mib(result.peakRssBytes)}`,
      ],
      ['SQLite: own work per turn', pct(own, 2)],
      ['SQLite: wall − model − search (fakes, incl. edit pacing)', pct(overhead, 2)],
    );
    data['sqlite'] = {
      writeMs,
      bytes,
      rssBeforeWritingBytes: rssStart,
      rssBytes: rssBefore,
      peakRssBytes: result.peakRssBytes,
      ownMs: own,
      overheadMs: overhead,
    };
  } finally {
    await sqlite.cleanup();
  }

  // Memory: the histories live in this process, so RSS grows with them.
  collectGarbage();
  const empty = process.memoryUsage();
  const memoryStores = await createStores({ url: 'memory://', sessionTtlMs: DAY_MS, logger: silentLogger });
  try {
    ctx.log(`scenario 3: writing ${n} histories to memory`);
    const writeMs = await writeHistories(memoryStores, n);
    collectGarbage();
    const full = process.memoryUsage();
    const heapGrowth = full.heapUsed - empty.heapUsed;
    const result = await withScout(ctx, { stores: memoryStores }, (bench) =>
      runSequential(bench, ctx.fakes, options.idleTurns),
    );
    const ok = result.turns.filter((t) => !t.error);
    const overhead = summarize(ok.map((t) => t.overheadMs));
    const own = summarize(ok.map((t) => t.ownMs));
    rows.push(
      ['memory: write time', `${(writeMs / 1000).toFixed(1)} s`],
      [
        'memory: heap growth for the sessions',
        `${mib(heapGrowth)} (${(heapGrowth / n).toFixed(0)} B per session; RSS ${mib(full.rss)})`,
      ],
      ['memory: own work per turn', pct(own, 2)],
      ['memory: wall − model − search (fakes, incl. edit pacing)', pct(overhead, 2)],
    );
    data['memory'] = {
      writeMs,
      heapGrowthBytes: heapGrowth,
      rssBytes: full.rss,
      ownMs: own,
      overheadMs: overhead,
    };
  } finally {
    await memoryStores.close();
  }
  return { id: 3, name: `${n} idle sessions in the store`, rows, targets: [], data };
}
