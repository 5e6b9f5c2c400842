/**
 * Scenario 2: N agent turns at once, each in its own thread, streaming at a realistic per-stream
 * rate: errors, overhead, peak RSS, edit rates per message and Web API calls.
 */
import {
  type BenchContext,
  fakeSpeed,
  mib,
  ms,
  pct,
  type ScenarioResult,
  type TargetCheck,
  withScout,
} from '../context.js';
import { callsByMethod, editStats, summarize } from '../metrics.js';
import { runConcurrent, warmUp } from '../turns.js';

/** SPEC §12: concurrent agent turns on 2 cores with no error. */
export const CONCURRENCY_TARGET = 500;

export async function concurrentTurns(ctx: BenchContext): Promise<ScenarioResult> {
  const { options } = ctx;
  await ctx.fakes.configure(fakeSpeed(options, options.concurrentTokensPerSecond));
  const rows: Array<[string, string]> = [];
  const targets: TargetCheck[] = [];
  const data: Record<string, unknown> = {};
  for (const n of options.concurrency) {
    ctx.log(`scenario 2: ${n} concurrent agent turns`);
    const result = await withScout(ctx, {}, async (bench) => {
      await warmUp(bench);
      return runConcurrent(bench, ctx.fakes, n);
    });
    const { turns, snapshot } = result;
    const failed = turns.filter((t) => t.error);
    const overhead = summarize(turns.filter((t) => !t.error).map((t) => t.overheadMs));
    const own = summarize(turns.filter((t) => !t.error).map((t) => t.ownMs));
    const pacing = summarize(turns.filter((t) => !t.error).map((t) => t.pacingMs));
    const wall = summarize(turns.map((t) => t.wallMs));
    const okTurns = turns.filter((t) => !t.error);
    // All N events leave this process at once: the wait for Bolt's ack is mostly connection set-up
    // and queueing in one saturated process (real Slack posts from elsewhere, spread over time).
    const ack = summarize(result.records.map((r) => (r.ackedAt ?? Number.NaN) - r.postedAt));
    const phases = {
      intakeMs: summarize(okTurns.map((t) => t.phases.intakeMs)),
      toFirstModelMs: summarize(okTurns.map((t) => t.phases.toFirstModelMs)),
      betweenCallsMs: summarize(okTurns.map((t) => t.phases.betweenCallsMs)),
      finishMs: summarize(okTurns.map((t) => t.phases.finishMs)),
    };
    const firstVisible = summarize(turns.map((t) => t.firstVisibleMs ?? Number.NaN));
    const edits = editStats(snapshot.slack);
    rows.push(
      [`N=${n} errors`, `${failed.length} / ${n}`],
      [`N=${n} wall (all done)`, `${(result.durationMs / 1000).toFixed(1)} s; per turn ${pct(wall, 0)}`],
      [`N=${n} own work (wall − client waits − pacing)`, pct(own)],
      [`N=${n} wall − model − search (fakes)`, `${pct(overhead)} (edit pacing ${pct(pacing, 0)})`],
      [`N=${n}   · event posted → Bolt's ack`, pct(ack, 0)],
      [
        `N=${n}   · event → core / → first model`,
        `${pct(phases.intakeMs, 0)} / ${pct(phases.toFirstModelMs, 0)}`,
      ],
      [
        `N=${n}   · between calls / after last model byte`,
        `${pct(phases.betweenCallsMs, 0)} / ${pct(phases.finishMs, 0)}`,
      ],
      [`N=${n} first token → visible`, pct(firstVisible)],
      [`N=${n} peak RSS`, mib(result.peakRssBytes)],
      [
        `N=${n} CPU`,
        `${(result.cpuMs / 1000).toFixed(1)} s total, ${(result.cpuMs / n).toFixed(1)} ms per turn`,
      ],
      [
        `N=${n} Web API calls`,
        `${snapshot.slack.length} (${(snapshot.slack.length / n).toFixed(1)} per turn)`,
      ],
      [
        `N=${n} writes / message / s (max)`,
        `${edits.maxEditsPerMessagePerSecond} (first text counted: ${edits.maxEditsPerMessagePerSecondStrict}; min gap ${ms(edits.minEditGapMs, 0)})`,
      ],
    );
    for (const [pair, count] of Object.entries(edits.fastPairs))
      rows.push([`N=${n} writes < 1 s apart`, `${count}× ${pair}`]);
    if (snapshot.violations.length)
      rows.push([`N=${n} Slack limit violations`, String(snapshot.violations.length)]);
    if (n === CONCURRENCY_TARGET || (n === Math.max(...options.concurrency) && n >= CONCURRENCY_TARGET)) {
      targets.push({
        target: `${n} concurrent agent turns with zero errors`,
        measured: `${failed.length} errors`,
        met: failed.length === 0,
      });
    }
    targets.push({
      target: `no message written more than once per second (N=${n}; first answer text and the final state exempt)`,
      measured: `max ${edits.maxEditsPerMessagePerSecond} edits in 1 s, min gap ${ms(edits.minEditGapMs, 0)}`,
      met: edits.maxEditsPerMessagePerSecond <= 1,
    });
    data[`n${n}`] = {
      errors: failed.length,
      errorSamples: failed.slice(0, 5).map((t) => `${t.tag}: ${t.error}`),
      durationMs: result.durationMs,
      ownMs: own,
      overheadMs: overhead,
      pacingMs: pacing,
      overheadPhases: phases,
      ackMs: ack,
      wallMs: wall,
      firstVisibleMs: firstVisible,
      peakRssBytes: result.peakRssBytes,
      cpuMs: result.cpuMs,
      webApiCalls: snapshot.slack.length,
      callsByMethod: callsByMethod(snapshot.slack),
      edits,
      violations: snapshot.violations.slice(0, 20),
    };
  }
  return {
    id: 2,
    name: `Concurrent agent turns (${options.concurrentTokensPerSecond} tokens/s per stream)`,
    rows,
    targets,
    data,
  };
}
