/**
 * Running batches of turns against a BenchScout: one after another (per-turn CPU is measurable
 * then) or all at once (peak RSS sampled while they run).
 */
import { WARMUP_TURNS } from './options.js';
import type { FakesHandle } from './fakes/fakes-client.js';
import type { FakesSnapshot } from './fakes/fakes.js';
import type { BenchScout, TurnRecord } from './harness.js';
import { breakdown, type TurnBreakdown } from './metrics.js';

/** How often RSS is sampled while concurrent turns run. */
const RSS_SAMPLE_MS = 100;

export interface SequentialTurn extends TurnBreakdown {
  /** User + system CPU of this process during the turn. */
  cpuMs: number;
}

export interface BatchResult<T extends TurnBreakdown = TurnBreakdown> {
  turns: T[];
  snapshot: FakesSnapshot;
  durationMs: number;
  peakRssBytes: number;
}

let batch = 0;
/** Turn tags unique over the whole run (the fakes key their records by them). */
const tagger = () => {
  const id = ++batch;
  return (i: number) => `bench-t${id}-${i}`;
};

function rssSampler(): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, RSS_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

export async function warmUp(bench: BenchScout, count = WARMUP_TURNS): Promise<void> {
  const tag = tagger();
  for (let i = 0; i < count; i++) await (await bench.startTurn(tag(i), i)).ended;
}

export async function runSequential(
  bench: BenchScout,
  fakes: FakesHandle,
  count: number,
): Promise<BatchResult<SequentialTurn>> {
  await warmUp(bench);
  await fakes.reset();
  const tag = tagger();
  const cpu = new Map<string, number>();
  const rss = rssSampler();
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const before = process.cpuUsage();
    const record = await bench.startTurn(tag(i), i);
    await record.ended;
    const used = process.cpuUsage(before);
    cpu.set(record.tag, (used.user + used.system) / 1000);
  }
  const durationMs = performance.now() - started;
  const peakRssBytes = rss.stop();
  const snapshot = await fakes.snapshot();
  const turns = breakdown(
    [...bench.turns.values()].filter((t) => cpu.has(t.tag)),
    snapshot,
    (tag) => bench.timings.get(tag),
  ).map((t) => ({ ...t, cpuMs: cpu.get(t.tag) ?? Number.NaN }));
  return { turns, snapshot, durationMs, peakRssBytes };
}

export async function runConcurrent(
  bench: BenchScout,
  fakes: FakesHandle,
  count: number,
): Promise<BatchResult & { cpuMs: number; records: TurnRecord[] }> {
  await fakes.reset();
  const tag = tagger();
  const rss = rssSampler();
  const before = process.cpuUsage();
  const started = performance.now();
  const records = await Promise.all(Array.from({ length: count }, (_, i) => bench.startTurn(tag(i), i)));
  await Promise.all(records.map((r) => r.ended));
  const durationMs = performance.now() - started;
  const used = process.cpuUsage(before);
  const peakRssBytes = rss.stop();
  const snapshot = await fakes.snapshot();
  return {
    turns: breakdown(records, snapshot, (tag) => bench.timings.get(tag)),
    snapshot,
    durationMs,
    peakRssBytes,
    cpuMs: (used.user + used.system) / 1000,
    records,
  };
}
