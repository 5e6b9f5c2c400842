/**
 * A very small run of benchmark scenario 1 (two agent turns through the Slack surface, fakes in this
 * process): proves the harness drives the real core end to end and that its measurements are sane —
 * the overhead is wall − model − search and never negative, every turn reached Slack.
 */
import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../bench/options.js';
import { runBench } from '../../bench/run.js';

describe('benchmark harness (scenario 1, two turns)', () => {
  it('runs agent turns end to end and splits their wall time into model, search and overhead', async () => {
    const options = {
      ...parseOptions([], {}),
      scenarios: [1],
      turns: 2,
      // Fast fakes: the numbers are not the point here, the bookkeeping is.
      firstTokenMs: 5,
      tokensPerSecond: 5_000,
      answerTokens: 40,
      searchLatencyMs: 5,
      tickMs: 5,
      inProcessFakes: true,
    };
    const [result] = await runBench(options, () => {});
    // The scenario's JSON payload, read loosely as the JSON file would be.
    // biome-ignore lint/suspicious/noExplicitAny: untyped JSON result
    const data = result!.data as Record<string, any>;

    expect(data.errors).toEqual([]);
    expect(data.violations).toEqual([]);
    expect(data.overheadMs.n).toBe(2);
    expect(data.overheadMs.p50).toBeGreaterThanOrEqual(0);
    expect(data.overheadMs.p99).toBeGreaterThanOrEqual(0);
    // Three model calls (two tool decisions, one answer) and two searches per turn were measured.
    expect(data.modelMs.p50).toBeGreaterThan(0);
    // Two searches per turn, each at least about the fake's latency (timers may fire a little early).
    expect(data.searchMs.p50).toBeGreaterThan(options.searchLatencyMs);
    expect(data.wallMs.p50).toBeGreaterThanOrEqual(data.modelMs.p50 + data.searchMs.p50 - 0.001);
    // The phases add up to the overhead.
    const phases = data.overheadPhases;
    const sum =
      phases.intakeMs.p50 + phases.toFirstModelMs.p50 + phases.betweenCallsMs.p50 + phases.finishMs.p50;
    expect(sum).toBeGreaterThan(0);
    // Scout's own work excludes the client-side waits (never more than the server-side figure, never
    // negative), and the waits at Scout's client are at least what the fakes measured.
    expect(data.ownMs.n).toBe(2);
    expect(data.ownMs.p50).toBeGreaterThan(0);
    expect(data.ownMs.p50).toBeLessThanOrEqual(data.ownWithTransportMs.p50);
    expect(data.clientModelMs.p50).toBeGreaterThanOrEqual(data.modelMs.p50 - 1);
    expect(data.clientSearchMs.p50).toBeGreaterThanOrEqual(data.searchMs.p50 - 1);
    expect(data.pacingMs.p50).toBeGreaterThanOrEqual(0);
    expect(data.overheadMs.p50).toBeGreaterThanOrEqual(
      data.ownWithTransportMs.p50 + data.pacingMs.p50 - 0.001,
    );
    // No message written twice within a second, apart from the first answer text (SPEC §8) and the
    // final state, written as soon as the last token arrives (issue 30).
    expect(data.edits.maxEditsPerMessagePerSecond).toBeLessThanOrEqual(1);
    expect(data.edits.fastPairs).toEqual({});
    // The answer reached Slack through real Web API calls, and the first visible edit was measured.
    expect(data.callsPerTurn).toBeGreaterThan(2);
    expect(data.callsByMethod['chat.startStream']).toBe(2);
    expect(data.firstVisibleMs.n).toBe(2);
    expect(data.cpuMs.p50).toBeGreaterThan(0);
    expect(result!.targets[0]!.target).toContain('overhead p50');
  });
});
