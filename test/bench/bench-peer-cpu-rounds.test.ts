/**
 * A small run of benchmark scenario 6 with two CPU rounds: proves the headline pair (50 concurrent
 * turns) is run again with fresh bots, that each round yields its own Scout / peer ratio, and that the
 * CPU target is judged on their median, not on the first round alone.
 */
import { describe, expect, it } from 'vitest';
import { median } from '../../bench/metrics.js';
import { parseOptions } from '../../bench/options.js';
import { runBench } from '../../bench/run.js';

describe('benchmark scenario 6 (the CPU ratio over rounds)', () => {
  it('runs the headline pair once per round and reads the CPU target from the median ratio', async () => {
    const options = {
      ...parseOptions([], {}),
      scenarios: [6],
      peerConcurrency: [50],
      peerCpuRounds: 2,
      // Fast fakes: the numbers are not the point here, the bookkeeping is.
      peerTokensPerSecond: [1_000],
      peerHeadlineTokensPerSecond: 1_000,
      peerAnswerTokens: 30,
      firstTokenMs: 5,
      tickMs: 5,
      inProcessFakes: true,
    };
    const [result] = await runBench(options, () => {});
    // biome-ignore lint/suspicious/noExplicitAny: untyped JSON result
    const data = result!.data as { cpuRatioRounds: number[]; levels: any[] };
    expect(data.levels[0].scout.errors).toBe(0);
    expect(data.cpuRatioRounds).toHaveLength(2);
    for (const r of data.cpuRatioRounds) expect(r).toBeGreaterThan(0);
    // The first round is the level's own run; the second came from fresh bots.
    const first = data.levels[0].scout.cpuPerTurnMs / data.levels[0].peer.cpuPerTurnMs;
    expect(data.cpuRatioRounds[0]).toBeCloseTo(first, 10);
    const cpu = result!.targets.find((t) => t.target.includes('CPU per turn ≤ 0.45×'))!;
    expect(cpu.measured).toBe(`${median(data.cpuRatioRounds).toFixed(2)}× (median of 2 rounds)`);
    expect(cpu.met).toBe(median(data.cpuRatioRounds) <= 0.45);
    expect(result!.rows.some(([name]) => name.includes('Scout / peer in each round'))).toBe(true);
  }, 240_000);
});
