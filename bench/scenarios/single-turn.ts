/**
 * Scenario 1: one agent turn at a time (2 searches, then a streamed answer) through the Slack
 * surface: wall time split into model, search and Scout's own overhead; CPU and Web API calls.
 */
import { type BenchContext, fakeSpeed, ms, pct, type ScenarioResult, withScout } from '../context.js';
import { callsByMethod, editStats, summarize } from '../metrics.js';
import { runSequential } from '../turns.js';

/** SPEC §12: Scout's own overhead per agent turn, p50. */
export const OVERHEAD_TARGET_MS = 5;

export async function singleTurn(ctx: BenchContext): Promise<ScenarioResult> {
  const { options } = ctx;
  await ctx.fakes.configure(fakeSpeed(options, options.tokensPerSecond));
  ctx.log(`scenario 1: ${options.turns} sequential agent turns`);
  const result = await withScout(ctx, {}, (bench) => runSequential(bench, ctx.fakes, options.turns));
  const { turns, snapshot } = result;
  const ok = turns.filter((t) => !t.error);
  const overhead = summarize(ok.map((t) => t.overheadMs));
  const cpu = summarize(ok.map((t) => t.cpuMs));
  const wall = summarize(ok.map((t) => t.wallMs));
  const model = summarize(ok.map((t) => t.modelMs));
  const search = summarize(ok.map((t) => t.searchMs));
  const firstVisible = summarize(ok.map((t) => t.firstVisibleMs ?? Number.NaN));
  const phase = (key: keyof (typeof ok)[number]['phases']) => summarize(ok.map((t) => t.phases[key]));
  const phases = {
    intakeMs: phase('intakeMs'),
    toFirstModelMs: phase('toFirstModelMs'),
    betweenCallsMs: phase('betweenCallsMs'),
    finishMs: phase('finishMs'),
  };
  const callsPerTurn = snapshot.slack.length / Math.max(1, turns.length);
  const edits = editStats(snapshot.slack);
  return {
    id: 1,
    name: `Single agent turn ×${turns.length} (2 searches + ${options.answerTokens}-token answer)`,
    rows: [
      ['errors', `${turns.length - ok.length} / ${turns.length}`],
      ['wall', pct(wall)],
      ['model time', pct(model)],
      ['search time', pct(search)],
      ['Scout overhead (wall − model − search)', pct(overhead, 2)],
      ['  · event → core (Bolt, dedupe, users.info)', pct(phases.intakeMs, 2)],
      ['  · core → first model request', pct(phases.toFirstModelMs, 2)],
      ['  · between model and search calls', pct(phases.betweenCallsMs, 2)],
      ['  · last model byte → turn end', pct(phases.finishMs, 2)],
      ['CPU per turn', pct(cpu)],
      ['Web API calls per turn', callsPerTurn.toFixed(1)],
      ['first token → first visible answer', pct(firstVisible)],
      ['max edits / message / s', String(edits.maxEditsPerMessagePerSecond)],
      ...Object.entries(edits.fastPairs).map(([pair, count]): [string, string] => [
        'edits < 1 s apart',
        `${count}× ${pair}`,
      ]),
    ],
    targets: [
      {
        target: `own overhead p50 < ${OVERHEAD_TARGET_MS} ms per agent turn`,
        measured: ms(overhead.p50, 2),
        met: overhead.p50 < OVERHEAD_TARGET_MS,
      },
    ],
    data: {
      overheadMs: overhead,
      overheadPhases: phases,
      cpuMs: cpu,
      wallMs: wall,
      modelMs: model,
      searchMs: search,
      firstVisibleMs: firstVisible,
      callsPerTurn,
      callsByMethod: callsByMethod(snapshot.slack),
      edits,
      violations: snapshot.violations,
      errors: turns.filter((t) => t.error).map((t) => `${t.tag}: ${t.error}`),
      durationMs: result.durationMs,
      peakRssBytes: result.peakRssBytes,
    },
  };
}
