/**
 * Scenario 4: from the model writing its first answer token to the first Web API call that shows
 * answer text — with Slack's native streaming (chat.appendStream) and with post + chat.update.
 */
import {
  type BenchContext,
  fakeSpeed,
  ms,
  pct,
  type ScenarioResult,
  type TargetCheck,
  withScout,
} from '../context.js';
import { editStats, summarize } from '../metrics.js';
import { runSequential } from '../turns.js';

/** SPEC §12: first visible answer text after the model's first token. */
export const FIRST_VISIBLE_TARGET_MS = 100;

export async function firstToken(ctx: BenchContext): Promise<ScenarioResult> {
  const { options } = ctx;
  await ctx.fakes.configure(fakeSpeed(options, options.tokensPerSecond));
  const rows: Array<[string, string]> = [];
  const targets: TargetCheck[] = [];
  const data: Record<string, unknown> = {};
  for (const nativeStreaming of [true, false]) {
    const label = nativeStreaming ? 'native streaming' : 'post + chat.update';
    ctx.log(`scenario 4: ${options.firstTokenTurns} turns, ${label}`);
    const { turns, snapshot } = await withScout(ctx, { nativeStreaming }, (bench) =>
      runSequential(bench, ctx.fakes, options.firstTokenTurns),
    );
    const delays = summarize(turns.map((t) => t.firstVisibleMs ?? Number.NaN));
    const edits = editStats(snapshot.slack);
    rows.push(
      [`${label}: first token → visible`, `${pct(delays)} · max ${ms(delays.max)}`],
      [
        `${label}: writes / message / s (max)`,
        `${edits.maxEditsPerMessagePerSecond} (first text counted: ${edits.maxEditsPerMessagePerSecondStrict}; min gap ${ms(edits.minEditGapMs, 0)})`,
      ],
      [`${label}: first answer text sooner than 1 s`, String(edits.firstTextSooner)],
      [`${label}: rewritten final right after the stream's stop`, String(edits.closingSooner)],
      [`${label}: final state sooner than 1 s after the write before it`, String(edits.finalSooner)],
      ...Object.entries(edits.fastPairs).map(([pair, count]): [string, string] => [
        `${label}: writes < 1 s apart`,
        `${count}× ${pair}`,
      ]),
    );
    targets.push({
      target: `no message written more than once per second (${label}; first answer text and the final state exempt)`,
      measured: `max ${edits.maxEditsPerMessagePerSecond} per 1 s, min gap ${ms(edits.minEditGapMs, 0)}`,
      met: edits.maxEditsPerMessagePerSecond <= 1,
    });
    targets.push({
      target: `first visible answer < ${FIRST_VISIBLE_TARGET_MS} ms after the model's first token (${label})`,
      measured: `p50 ${ms(delays.p50)}, max ${ms(delays.max)}`,
      met: delays.p50 < FIRST_VISIBLE_TARGET_MS && delays.n === turns.length,
    });
    data[nativeStreaming ? 'nativeStreaming' : 'postAndUpdate'] = {
      firstVisibleMs: delays,
      perTurnMs: turns.map((t) => t.firstVisibleMs ?? null),
      edits,
      errors: turns.filter((t) => t.error).map((t) => `${t.tag}: ${t.error}`),
    };
  }
  return { id: 4, name: "Model's first token → first visible answer at Slack", rows, targets, data };
}
