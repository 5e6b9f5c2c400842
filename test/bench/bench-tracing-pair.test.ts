/**
 * A very small run of benchmark scenario 17 (two Scout processes from the build, traces off and on,
 * side by side on the same fakes): proves the pairing keeps the two bots apart — each gets its own
 * turns answered, the Slack calls are told apart by bot, and only the traced bot's turns arrive as
 * traces — so the paired difference compares like with like.
 */
import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../bench/options.js';
import { runBench } from '../../bench/run.js';

describe('benchmark scenario 17 (traces off and on side by side, one round)', () => {
  it('answers every turn of both bots and receives one trace per turn from the traced bot only', async () => {
    const options = {
      ...parseOptions([], {}),
      scenarios: [17],
      agentConcurrency: [2],
      agentRounds: 1,
      // Fast fakes: the numbers are not the point here, the bookkeeping is.
      peerTokensPerSecond: [1_000],
      peerHeadlineTokensPerSecond: 1_000,
      peerAnswerTokens: 30,
      firstTokenMs: 5,
      searchLatencyMs: 5,
      tickMs: 5,
      inProcessFakes: true,
    };
    const [result] = await runBench(options, () => {});
    // biome-ignore lint/suspicious/noExplicitAny: untyped JSON result
    const [level] = (result!.data as { levels: any[] }).levels;
    const [round] = level.rounds;
    expect(round.errors).toEqual({ off: 0, on: 0 });
    // Each bot wrote its own answers (an agent turn: stream start, appends, stop, at least).
    expect(round.slackCallsPerTurn.off).toBeGreaterThanOrEqual(3);
    expect(round.slackCallsPerTurn.on).toBeGreaterThanOrEqual(3);
    expect(round.cpuPerTurnMs.off).toBeGreaterThan(0);
    expect(round.cpuPerTurnMs.on).toBeGreaterThan(0);
    // Two measured turns to the traced bot: two traces, each with its turn's span.
    expect(level.traces).toEqual([2]);
    expect(level.orphans).toEqual([0]);
    expect(result!.targets[0]!.target).toContain('under 5 % more CPU per turn');
  }, 120_000);
});
