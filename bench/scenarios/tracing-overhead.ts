/**
 * Scenario 17: what OpenTelemetry traces cost a turn (issue 29). The same agent turns as scenario 11
 * (Scout in its own process from its compiled build: 2 tool decisions, 2 searches, the streamed
 * answer; `--agent-concurrency`, `--agent-rounds`), with traces off in one process and on in another,
 * **both running at the same time** on the same fakes: each round starts a fresh pair, warms both up,
 * then sends each its N turns in one interleaved burst. Rounds of one setting run one after another
 * drifted by half over ten rounds on a 2-core machine, more than the 1–3 ms looked for; run side by
 * side, whatever the machine, the fakes and the bench do to one bot they do to the other in the same
 * second, so each round's on − off difference is paired in time. Which bot starts first and whose
 * mention goes first alternate by round.
 *
 * "On" exports every span to an OTLP/HTTP receiver on loopback in this process (protobuf, kept as it
 * arrives and decoded only when the bench looks, so decoding competes little with the bots for the 2
 * cores), at the batch processor's default schedule (every 5 s, or at once when 512 spans wait). The
 * measured window closes once every measured turn's trace has arrived — the export is part of the cost
 * — and the warm-up's traces arrive before it opens. CPU per turn is each bot's own
 * (/proc), as in scenario 11. Target: traces on costs under 5 % more CPU per turn, read from the median
 * of the rounds' paired differences over the median "off" turn.
 */
import { type BotProcess, ensureBuilt, startBot } from '../bot-process.js';
import { type BenchContext, fakeSpeed, ms, type ScenarioResult, type TargetCheck } from '../context.js';
import { median, medianInterval, sleep } from '../metrics.js';
import { type OtlpReceiver, startOtlpReceiver } from '../../test/helpers/otlp-receiver.js';
import { IDLE_COLLECT_AFTER_MS } from '../../src/ops/idle-memory.js';
import { headlineRate, QUIET_MS, SETTLE_MS, settled, warmupTurns } from './peer.js';

type Tracing = 'off' | 'on';
const SIDES: readonly Tracing[] = ['off', 'on'];

/**
 * How long the bench waits, after the measured turns have settled, for every turn's span. Both bots'
 * windows close then, so it must end before either runs its idle collection (IDLE_COLLECT_AFTER_MS
 * after its last turn; the turns settle QUIET_MS after the last Slack call): with the sampler off no
 * span ever comes, and a 10 s wait put both collections, of heaps of different sizes, inside the
 * window that the sampler-on runs close before them. WAIT_MARGIN_MS covers the settle poll and the
 * turns' last writes. The 7 s this leaves is enough for the spans of the last turns, which arrive
 * at the batch processor's next export, at most 5 s after they end.
 */
const WAIT_MARGIN_MS = 1_500;
const ROOT_WAIT_MS = IDLE_COLLECT_AFTER_MS - QUIET_MS - WAIT_MARGIN_MS;

interface PairRound {
  cpuPerTurnMs: Record<Tracing, number>;
  cpuPerTurnByThreadMs: Record<Tracing, Record<string, number>>;
  /** Turns whose answer never ended, and Web API calls refused, per bot. */
  errors: Record<Tracing, number>;
  /** Slack Web API calls per turn (both bots do the same work: a difference here is not tracing's CPU). */
  slackCallsPerTurn: Record<Tracing, number>;
  /** Who started first and whose mention went first this round. */
  first: Tracing;
}

let bursts = 0;

/** Turns' spans among these (a turn's span has no parent). */
const roots = (spans: ReadonlyArray<{ parentSpanId: string }>) =>
  spans.filter((s) => s.parentSpanId === '').length;

/** Waits (at most ROOT_WAIT_MS) until `turns` turns' spans have arrived after the first `from` spans. */
const tracesArrived = (receiver: OtlpReceiver, from: number, turns: number) =>
  receiver.waitFor((spans) => roots(spans.slice(from)) >= turns, ROOT_WAIT_MS).catch(() => undefined);

/** N mentions to each bot, interleaved (first, other, first, other…), all in flight at once. */
async function burst(bots: Record<Tracing, BotProcess>, order: readonly Tracing[], count: number) {
  const run = ++bursts;
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      order.map(async (side) => ({
        side,
        thread: await bots[side].mention(`bench-t17${run}${side}-${i}`, i),
      })),
    ).flat(),
  );
}

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
    rounds: PairRound[];
    traces: number[];
    orphans: number[];
    exports: string[];
  }> = [];
  const env = (side: Tracing): Record<string, string> =>
    side === 'on'
      ? {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          // BENCH_TRACED_ENV='{"OTEL_TRACES_SAMPLER":"always_off"}': more of the traced bot's variables
          // (which part of the cost is recording spans, which exporting them).
          ...(JSON.parse(process.env.BENCH_TRACED_ENV ?? '{}') as Record<string, string>),
        }
      : {};
  try {
    for (const level of options.agentConcurrency) {
      const rounds: PairRound[] = [];
      const traces: number[] = [];
      /** Traces whose spans arrived without their turn's span (cut off at shutdown). */
      const orphans: number[] = [];
      /** Per round: the exporter's TCP connections and export requests ("1 / 9"). */
      const exports: string[] = [];
      for (let round = 1; round <= options.agentRounds; round++) {
        const order: readonly Tracing[] = round % 2 ? SIDES : [...SIDES].reverse();
        ctx.log(
          `  [17] round ${round}: ${level} agent turns to each of traces ${order.join(' and ')}, at once`,
        );
        const bots = {} as Record<Tracing, BotProcess>;
        try {
          for (const side of order)
            bots[side] = await startBot('scout', fakes, {
              mode: 'agent',
              env: env(side),
              channelTag: side.toUpperCase(),
            });
          await sleep(SETTLE_MS);
          await fakes.reset();
          const warmSpans = receiver.spans().length;
          const warm = warmupTurns();
          await settled(
            fakes,
            (await burst(bots, order, warm)).map((t) => t.thread),
          );
          // The warm-up's spans are exported (at the processor's schedule) before the window opens.
          await tracesArrived(receiver, warmSpans, warm);
          await sleep(SETTLE_MS);
          await fakes.reset();
          const spansBefore = receiver.spans().length;
          const connectionsBefore = receiver.connections();
          const requestsBefore = receiver.requests.length;
          const cpuBefore = { off: bots.off.cpuMs(), on: bots.on.cpuMs() };
          const threadsBefore = { off: bots.off.cpuByThreadMs(), on: bots.on.cpuByThreadMs() };
          const sent = await burst(bots, order, level);
          const snapshot = await settled(
            fakes,
            sent.map((t) => t.thread),
          );
          // The window closes when every measured turn's trace has arrived (the root span ends last,
          // after its delivery): exporting them is part of what traces cost, at the SDK's own
          // schedule. The untraced bot is read at the same moment.
          await tracesArrived(receiver, spansBefore, level);
          const sides = new Map(sent.map((t) => [t.thread, t.side]));
          const ended = new Set(snapshot.slack.filter((c) => c.hasEnd && c.thread).map((c) => c.thread!));
          const perSide = <T>(f: (side: Tracing) => T) => ({ off: f('off'), on: f('on') });
          const byThread = (side: Tracing) => {
            const out: Record<string, number> = {};
            for (const [name, used] of Object.entries(bots[side].cpuByThreadMs()))
              out[name] = (used - (threadsBefore[side][name] ?? 0)) / level;
            return out;
          };
          rounds.push({
            cpuPerTurnMs: perSide((side) => (bots[side].cpuMs() - cpuBefore[side]) / level),
            cpuPerTurnByThreadMs: perSide(byThread),
            // As scenario 6 counts them: turns whose answer never ended, and Web API calls refused.
            errors: perSide(
              (side) =>
                sent.filter((t) => t.side === side && !ended.has(t.thread)).length +
                snapshot.slack.filter((c) => !c.ok && c.thread && sides.get(c.thread) === side).length,
            ),
            slackCallsPerTurn: perSide(
              (side) => snapshot.slack.filter((c) => c.thread && sides.get(c.thread) === side).length / level,
            ),
            first: order[0]!,
          });
          const last = rounds.at(-1)!;
          ctx.log(
            `  [17] round ${round}: off ${ms(last.cpuPerTurnMs.off)}, on ${ms(last.cpuPerTurnMs.on)} per turn (on − off ${(last.cpuPerTurnMs.on - last.cpuPerTurnMs.off).toFixed(1)} ms)`,
          );
          const spans = receiver.spans().slice(spansBefore);
          const rootCount = roots(spans);
          traces.push(rootCount);
          orphans.push(new Set(spans.map((s) => s.traceId)).size - rootCount);
          exports.push(
            `${receiver.connections() - connectionsBefore} / ${receiver.requests.length - requestsBefore}`,
          );
        } finally {
          await Promise.all(Object.values(bots).map((bot) => bot.stop()));
        }
      }
      levels.push({ level, rounds, traces, orphans, exports });
      const cpu = (side: Tracing) => rounds.map((r) => r.cpuPerTurnMs[side]);
      const paired = rounds.map((r) => r.cpuPerTurnMs.on - r.cpuPerTurnMs.off);
      // True medians (ten rounds: the mean of the middle two), not the lower middle value.
      const off = median(cpu('off'));
      const cost = median(paired);
      for (const side of SIDES)
        rows.push([
          `N=${level} traces ${side}: CPU per turn (each round)`,
          cpu(side)
            .map((v) => ms(v))
            .join(' / '),
        ]);
      rows.push(
        [
          `N=${level} CPU per turn, on − off in each round (median)`,
          `${paired.map((d) => d.toFixed(1)).join(' / ')} ms (${ms(cost)})`,
        ],
        [
          `N=${level} Slack calls per turn, off / on (each round)`,
          rounds
            .map((r) => `${r.slackCallsPerTurn.off.toFixed(1)}/${r.slackCallsPerTurn.on.toFixed(1)}`)
            .join(' '),
        ],
        [`N=${level} started first, each round`, rounds.map((r) => r.first).join(' / ')],
        [
          `N=${level} errors off / on`,
          `${rounds.map((r) => r.errors.off).join(' ')} / ${rounds.map((r) => r.errors.on).join(' ')}`,
        ],
        // Warm-up turns' traces arrive before the window: level per round (fewer: cut off at shutdown).
        [`N=${level} traces received in the window, per round`, traces.join(' / ')],
        [`N=${level} traces without their turn's span per round`, orphans.join(' / ')],
        [`N=${level} exporter connections / export requests per round`, exports.join(', ')],
      );
      // Where the CPU went, per thread (main = JavaScript; V8Worker = GC helpers and background JIT).
      for (const name of ['main', 'V8Worker'])
        rows.push([
          `N=${level} CPU per turn on the ${name} thread, on − off (median of rounds)`,
          ms(
            median(
              rounds.map(
                (r) => (r.cpuPerTurnByThreadMs.on[name] ?? 0) - (r.cpuPerTurnByThreadMs.off[name] ?? 0),
              ),
            ),
          ),
        ]);
      const share = (v: number) => (off > 0 ? v / off : Number.NaN);
      const pct = (v: number) => `${(share(v) * 100).toFixed(1)} %`;
      // How far the median could be from the truth, given how the rounds spread (ten rounds: x(2)…x(9)).
      const interval = medianInterval(paired);
      const spread = interval
        ? `${pct(interval.low)} to ${pct(interval.high)} (${(interval.coverage * 100).toFixed(1)} % interval of the median)`
        : 'too few rounds for a 95 % interval';
      rows.push(
        [`N=${level} traces cost (median paired difference / median off)`, pct(cost)],
        [`N=${level} traces cost, interval of the median`, spread],
      );
      targets.push({
        target: `traces on (to a loopback OTLP receiver), ${level} concurrent agent turns: under 5 % more CPU per turn`,
        measured: `${cost.toFixed(2)} ms of ${off.toFixed(1)} ms = ${pct(cost)} (median of ${rounds.length} paired rounds; ${spread})`,
        met: share(cost) < 0.05,
      });
    }
  } finally {
    await receiver.close();
    await fakes.configure(fakeSpeed(options, options.tokensPerSecond));
  }
  return {
    id: 17,
    name: 'Tracing overhead: agent turns with OpenTelemetry traces off and on, side by side',
    rows,
    targets,
    data: { levels },
  };
}
