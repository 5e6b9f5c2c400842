/**
 * Scenario 17: what OpenTelemetry traces cost a turn (issue 29). The same agent turns as scenario 11
 * (Scout in its own process from its compiled build: 2 tool decisions, 2 searches, the streamed
 * answer; `--agent-concurrency`, `--agent-rounds`), run with traces off and on in turns (off, on,
 * off, on … one fresh process each, so both see the same machine load). "On" exports every span to
 * an OTLP/HTTP receiver on loopback in this process (protobuf, decoded here after the window, so the
 * spans are known to have arrived without the decoding competing with the bot for the 2 cores), with the batch processor's delay cut from 5 s to 1 s so every export falls inside
 * the measured window (which ends 1.5 s after the last Slack call; with 5 s, spans would be exported
 * after it and their cost missed). CPU per turn is the bot's own
 * (/proc), as in scenario 11. Target: traces on costs under 5 % more CPU per turn.
 */
import { ensureBuilt } from '../bot-process.js';
import { type BenchContext, fakeSpeed, ms, type ScenarioResult, type TargetCheck } from '../context.js';
import { summarize } from '../metrics.js';
import { startOtlpReceiver } from '../../test/helpers/otlp-receiver.js';
import { headlineRate, type LevelRun, ratio, runLevel } from './peer.js';

type Tracing = 'off' | 'on';

/** How long the bench waits, after the measured turns, for every turn's span before stopping the bot. */
const ROOT_WAIT_MS = 10_000;

export async function tracingOverhead(ctx: BenchContext): Promise<ScenarioResult> {
  const { options, fakes } = ctx;
  await ensureBuilt();
  const speed = fakeSpeed(options, headlineRate(options));
  await fakes.configure({ ...speed, speed: { ...speed.speed, answerTokens: options.peerAnswerTokens } });
  // Lazy: spans are decoded after the measured window (a real collector runs on another machine).
  const receiver = await startOtlpReceiver({ lazy: true });
  const rows: Array<[string, string]> = [];
  const targets: TargetCheck[] = [];
  const levels: Array<{
    level: number;
    runs: Record<Tracing, LevelRun[]>;
    traces: number[];
    orphans: number[];
    waits: number[];
    exports: string[];
  }> = [];
  try {
    for (const level of options.agentConcurrency) {
      const runs: Record<Tracing, LevelRun[]> = { off: [], on: [] };
      const traces: number[] = [];
      /** Traces whose spans arrived without their turn's span (cut off at shutdown). */
      const orphans: number[] = [];
      /** How long after the measured window the last turn's span arrived (NaN: not within ROOT_WAIT_MS). */
      const waits: number[] = [];
      /** Per "on" round: the exporter's TCP connections and export requests ("1 / 9"). */
      const exports: string[] = [];
      for (let round = 1; round <= options.agentRounds; round++) {
        for (const tracing of ['off', 'on'] as const) {
          ctx.log(`  [16] traces ${tracing}: ${level} concurrent agent turns (round ${round})`);
          const before = receiver.spans().length;
          const connectionsBefore = receiver.connections();
          const requestsBefore = receiver.requests.length;
          const env: Record<string, string> =
            tracing === 'on'
              ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '1000' }
              : {};
          // Before the bot is stopped (after the measured window): every turn's span, the warm-up's
          // included. A turn's span ends only when its delivery has, which may be after the last
          // Slack call the window waits for; a bot still finishing a turn 5 s after SIGTERM is
          // killed, and its last spans with it.
          const allRooted = async () => {
            const started = performance.now();
            const rooted = (spans: typeof received) =>
              spans.slice(before).filter((s) => s.parentSpanId === '').length >= level + 1;
            const received = receiver.spans();
            await receiver.waitFor(rooted, ROOT_WAIT_MS).then(
              () => waits.push(performance.now() - started),
              () => waits.push(Number.NaN),
            );
          };
          runs[tracing].push(
            await runLevel(
              ctx,
              'scout',
              level,
              { mode: 'agent', env },
              tracing === 'on' ? allRooted : undefined,
            ),
          );
          const last = runs[tracing].at(-1)!;
          ctx.log(
            `  [16] traces ${tracing}: ${ms(last.cpuPerTurnMs)} per turn; by thread: ${Object.entries(
              last.cpuPerTurnByThreadMs,
            )
              .filter(([, v]) => v > 0)
              .sort((a, b) => b[1] - a[1])
              .map(([name, v]) => `${name} ${v.toFixed(2)}`)
              .join(', ')}`,
          );
          if (tracing === 'on') {
            const spans = receiver.spans().slice(before);
            const roots = spans.filter((s) => s.parentSpanId === '').length;
            traces.push(roots);
            exports.push(
              `${receiver.connections() - connectionsBefore} / ${receiver.requests.length - requestsBefore}`,
            );
            orphans.push(new Set(spans.map((s) => s.traceId)).size - roots);
            const rooted = new Set(spans.filter((s) => s.parentSpanId === '').map((s) => s.traceId));
            const cut = spans.filter((s) => !rooted.has(s.traceId));
            if (cut.length > 0)
              ctx.log(`  [16] spans without their turn's span: ${cut.map((s) => s.name).join(', ')}`);
          }
        }
      }
      levels.push({ level, runs, traces, orphans, waits, exports });
      const cpu = (t: Tracing) => runs[t].map((r) => r.cpuPerTurnMs);
      const median = (t: Tracing) => summarize(cpu(t)).p50;
      for (const tracing of ['off', 'on'] as const)
        rows.push([
          `N=${level} traces ${tracing}: CPU per turn (each round)`,
          cpu(tracing)
            .map((v) => ms(v))
            .join(' / '),
        ]);
      rows.push(
        [
          `N=${level} errors off / on`,
          `${runs.off.map((r) => r.errors).join(' ')} / ${runs.on.map((r) => r.errors).join(' ')}`,
        ],
        // Warm-up turn included: level + 1 traces per round.
        [`N=${level} traces received per round (turns + warm-up)`, traces.join(' / ')],
        [`N=${level} traces without their turn's span per round`, orphans.join(' / ')],
        [`N=${level} exporter connections / export requests per round`, exports.join(', ')],
        [
          `N=${level} last turn's span arrived after the window (each round)`,
          waits.map((w) => (Number.isFinite(w) ? ms(w) : `not in ${ROOT_WAIT_MS / 1000} s`)).join(' / '),
        ],
      );
      // Where the CPU went, per thread (main = JavaScript; V8Worker = GC helpers and background JIT).
      const byThread = (t: Tracing, name: string) =>
        summarize(runs[t].map((r) => r.cpuPerTurnByThreadMs[name] ?? 0)).p50;
      for (const name of ['main', 'V8Worker'])
        rows.push([
          `N=${level} CPU per turn on the ${name} thread, off / on (medians)`,
          `${ms(byThread('off', name))} / ${ms(byThread('on', name))}`,
        ]);
      // Rounds spread more than the effect on a shared 2-core machine: each round's on − off too.
      const paired = runs.on.map((r, i) => r.cpuPerTurnMs - (runs.off[i]?.cpuPerTurnMs ?? Number.NaN));
      rows.push([
        `N=${level} CPU per turn, on − off in each round (median)`,
        `${paired.map((d) => d.toFixed(1)).join(' / ')} ms (${ms(summarize(paired).p50)})`,
      ]);
      const cost = ratio(median('on'), median('off'));
      rows.push([`N=${level} CPU per turn, on / off (medians)`, `${((cost - 1) * 100).toFixed(1)} %`]);
      targets.push({
        target: `traces on (to a loopback OTLP receiver), ${level} concurrent agent turns: under 5 % more CPU per turn`,
        measured: `${median('on').toFixed(1)} / ${median('off').toFixed(1)} ms = ${((cost - 1) * 100).toFixed(1)} %`,
        met: cost < 1.05,
      });
    }
  } finally {
    await receiver.close();
    await fakes.configure(fakeSpeed(options, options.tokensPerSecond));
  }
  return {
    id: 16,
    name: 'Tracing overhead: agent turns with OpenTelemetry traces off and on',
    rows,
    targets,
    data: { levels },
  };
}
