/**
 * What every scenario gets: the options, the running fakes, and helpers to start a Scout against
 * them with the fake speeds a scenario wants.
 */
import type { FakesHandle } from './fakes/fakes-client.js';
import type { FakesConfig } from './fakes/fakes.js';
import { type BenchScout, type BenchScoutOptions, startBenchScout } from './harness.js';
import type { BenchOptions } from './options.js';

export interface BenchContext {
  options: BenchOptions;
  fakes: FakesHandle;
  /** Progress lines (stderr), so stdout stays the table. */
  log(line: string): void;
}

/** One pass/fail line of the README's targets. */
export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean;
}

export interface ScenarioResult {
  id: number;
  name: string;
  /** Table rows: label → value, printed in order. */
  rows: Array<[string, string]>;
  targets: TargetCheck[];
  /** Everything measured, for the JSON file. */
  data: Record<string, unknown>;
}

export function fakeSpeed(options: BenchOptions, tokensPerSecond: number): FakesConfig {
  return {
    speed: {
      firstTokenMs: options.firstTokenMs,
      tokensPerSecond,
      answerTokens: options.answerTokens,
      searchesPerTurn: options.searches,
      tickMs: options.tickMs,
    },
    searchLatencyMs: options.searchLatencyMs,
  };
}

/** Starts a Scout + Slack surface, runs `fn`, and always closes it. */
export async function withScout<T>(
  ctx: BenchContext,
  overrides: Partial<BenchScoutOptions> & { storeUrl?: string },
  fn: (bench: BenchScout) => Promise<T>,
): Promise<T> {
  const bench = await startBenchScout({
    fakes: ctx.fakes,
    storeUrl: 'memory://',
    searches: ctx.options.searches,
    nativeStreaming: true,
    logLevel: ctx.options.logLevel,
    ...overrides,
  });
  try {
    return await fn(bench);
  } finally {
    await bench.close();
  }
}

export const ms = (v: number, digits = 1): string => (Number.isFinite(v) ? `${v.toFixed(digits)} ms` : 'n/a');
export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
export const pct = (s: { p50: number; p99: number }, digits = 1): string =>
  `p50 ${ms(s.p50, digits)} · p99 ${ms(s.p99, digits)}`;
