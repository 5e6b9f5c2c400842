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
  const pick = (f: (t: (typeof ok)[number]) => number) => summarize(ok.map(f));
  const own = pick((t) => t.ownMs);
  const ownWithTransport = pick((t) => t.ownWithTransportMs);
  const overhead = pick((t) => t.overheadMs);
  const pacing = pick((t) => t.pacingMs);
  const cpu = pick((t) => t.cpuMs);
  const wall = pick((t) => t.wallMs);
  const model = pick((t) => t.modelMs);
  const search = pick((t) => t.searchMs);
  const clientModel = pick((t) => t.clientModelMs);
  const clientSearch = pick((t) => t.clientSearchMs);
  const firstVisible = pick((t) => t.firstVisibleMs ?? Number.NaN);
  type Phase = keyof (typeof ok)[number]['phases'];
  const phaseSet = (of: (t: (typeof ok)[number]) => Record<Phase, number>) => ({
    intakeMs: pick((t) => of(t).intakeMs),
    toFirstModelMs: pick((t) => of(t).toFirstModelMs),
    betweenCallsMs: pick((t) => of(t).betweenCallsMs),
    finishMs: pick((t) => of(t).finishMs),
  });
  const phases = phaseSet((t) => t.phases);
  const ownPhases = phaseSet((t) => t.ownPhases);
  const delivery = pick((t) => t.deliveryMs);
  const slackWait = pick((t) => t.slackWaitMs);
  const ownCpuPath = pick((t) => t.ownCpuPathMs);
  const finishSplit = {
    wrapUpMs: pick((t) => t.finishSplit.wrapUpMs),
    finalRenderMs: pick((t) => t.finishSplit.finalRenderMs),
    afterRenderMs: pick((t) => t.finishSplit.afterRenderMs),
  };
  const callsPerTurn = snapshot.slack.length / Math.max(1, turns.length);
  const edits = editStats(snapshot.slack);
  return {
    id: 1,
    name: `Single agent turn ×${turns.length} (2 searches + ${options.answerTokens}-token answer)`,
    rows: [
      ['errors', `${turns.length - ok.length} / ${turns.length}`],
      ['wall', pct(wall)],
      ['model / search time at the fakes', `${pct(model)} / ${pct(search)}`],
      ["model / search wait at Scout's client", `${pct(clientModel)} / ${pct(clientSearch)}`],
      ["edit pacing (Slack's 1 s interval, final call)", pct(pacing)],
      ["event delivery (bench → Scout's HTTP server)", pct(delivery, 2)],
      ['OWN WORK: wall − delivery − client waits − pacing', pct(own, 2)],
      ['  · event received → core (Bolt, dedupe, users.info)', pct(ownPhases.intakeMs, 2)],
      ['  · core → first model call', pct(ownPhases.toFirstModelMs, 2)],
      ['  · between model and search calls', pct(ownPhases.betweenCallsMs, 2)],
      ['  · last model part → turn end (− pacing)', pct(ownPhases.finishMs, 2)],
      ['      core wrap-up before the final render', pct(finishSplit.wrapUpMs, 2)],
      ['      final render (Web API calls, − pacing)', pct(finishSplit.finalRenderMs, 2)],
      ['      after the final render (lock release)', pct(finishSplit.afterRenderMs, 2)],
      ['  of which waiting on Slack Web API round trips', pct(slackWait, 2)],
      ['own work without Slack round trips', pct(ownCpuPath, 2)],
      ['own work + loopback transport/SDKs/delivery', pct(ownWithTransport, 2)],
      ['SPEC literal: wall − model − search (fakes)', pct(overhead, 2)],
      ['CPU per turn', pct(cpu)],
      ['Web API calls per turn', callsPerTurn.toFixed(1)],
      ['first token → first visible answer', pct(firstVisible)],
      [
        'max writes / message / s',
        `${edits.maxEditsPerMessagePerSecond} (strict, first text counted: ${edits.maxEditsPerMessagePerSecondStrict}; min gap ${ms(edits.minEditGapMs, 0)})`,
      ],
      ['first answer text sooner than 1 s (SPEC §8)', String(edits.firstTextSooner)],
      ["rewritten final right after the stream's stop", String(edits.closingSooner)],
      ['final state sooner than 1 s after the write before it', String(edits.finalSooner)],
      ...Object.entries(edits.fastPairs).map(([pair, count]): [string, string] => [
        'writes < 1 s apart',
        `${count}× ${pair}`,
      ]),
    ],
    targets: [
      {
        target: `own overhead p50 < ${OVERHEAD_TARGET_MS} ms per agent turn (own work: wall − event delivery − model/search waits at Scout's client − edit pacing)`,
        measured: `${ms(own.p50, 2)} (incl. loopback transport/SDKs ${ms(ownWithTransport.p50, 2)}; SPEC literal ${ms(overhead.p50, 2)})`,
        met: own.p50 < OVERHEAD_TARGET_MS,
      },
      {
        target:
          'no message written more than once per second (scenario 1; first answer text and a rewritten final right after the stop exempt)',
        measured: `max ${edits.maxEditsPerMessagePerSecond} per 1 s, min gap ${ms(edits.minEditGapMs, 0)}`,
        met: edits.maxEditsPerMessagePerSecond <= 1,
      },
    ],
    data: {
      ownMs: own,
      ownWithTransportMs: ownWithTransport,
      overheadMs: overhead,
      pacingMs: pacing,
      ownPhases,
      ownFinishSplit: finishSplit,
      deliveryMs: delivery,
      slackWaitMs: slackWait,
      ownWithoutSlackWaitsMs: ownCpuPath,
      overheadPhases: phases,
      clientModelMs: clientModel,
      clientSearchMs: clientSearch,
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
