/**
 * Scenario 6: Scout against a minimal Chat SDK bot (bench/peer/chat-sdk-bot.mjs), each in its own
 * process, on the same fakes in the same run: the same signed `app_mention` events, the same
 * OpenAI-compatible stream, the same fake Slack Web API. Scout runs in chat mode from its compiled
 * build. Each concurrent level runs at every stream rate of `peerTokensPerSecond` (20, 50 and 100
 * tokens/s by default, 50 the headline: real models' speeds), level 1 at the headline rate. Per
 * level, rate and bot, a fresh process: started, warmed up with one turn, left idle (idle RSS),
 * then the level's turns (at level 1 one after another, else all at once).
 *
 * Measured from outside the bot: CPU from /proc (user + system, whole process, over the turns),
 * peak RSS (VmHWM), memory per turn in flight (RSS sampled during the turns, its peak minus the
 * idle RSS, over the turns), Slack Web API calls per turn (every method, as the fake recorded them),
 * and
 * last token → final message, per thread: from the fake model writing the last token of that
 * thread's own answer stream to the last Web API call that writes that thread's answer message
 * (post, update, append or stop stream; metrics.ts lastTokenToFinal), and the part of it up to the
 * thread's chat.stopStream (Scout's final is the stop and then a closing chat.update; the peer's is
 * the stop alone).
 */
import { type BotKind, type BotProcess, type BotStart, ensureBuilt, startBot } from '../bot-process.js';
import { IDLE_COLLECT_AFTER_MS } from '../../src/ops/idle-memory.js';
import { type BenchContext, fakeSpeed, mib, ms, type ScenarioResult, type TargetCheck } from '../context.js';
import type { FakesHandle } from '../fakes/fakes-client.js';
import type { FakesSnapshot } from '../fakes/fakes.js';
import {
  lastTokenToFinal,
  lastTokenToStop,
  median,
  medianInterval,
  sleep,
  summarize,
  type TaggedThread,
} from '../metrics.js';

const BOTS: BotKind[] = ['scout', 'peer'];
/** A turn is over when its answer's last word reached Slack and no Web API call came for this long. */
export const QUIET_MS = 1_500;
const POLL_MS = 250;
const TURN_TIMEOUT_MS = 120_000;
/** Lets start-up allocations settle before the idle reading. */
export const SETTLE_MS = 2_000;
/** RSS is sampled this often while the turns run (VmHWM also holds start-up's peak). */
const RSS_SAMPLE_MS = 50;
/**
 * Level 1 also reads what the bot costs doing nothing: over this window, once Scout's idle
 * collection (IDLE_COLLECT_AFTER_MS after its last turn) is behind it, so only what runs for ever
 * (timers, samplers) is left in it. Scout's event-loop lag sampler at prom-client's 10 ms cost
 * 8.8 ms of CPU a second; the peer reads 0.1.
 */
const IDLE_CPU_WINDOW_MS = 5_000;
const IDLE_CPU_AFTER_MS = IDLE_COLLECT_AFTER_MS + 2_000;

export interface LevelRun {
  bot: BotKind;
  turns: number;
  errors: number;
  cpuPerTurnMs: number;
  /** CPU per turn by thread name (the main thread, V8's workers, libuv's pool…), over the same window. */
  cpuPerTurnByThreadMs: Record<string, number>;
  slackCallsPerTurn: number;
  callsByMethod: Record<string, number>;
  startRssBytes: number;
  idleRssBytes: number;
  peakRssBytes: number;
  /** The most RSS held while the level's turns ran (sampled every RSS_SAMPLE_MS). */
  runPeakRssBytes: number;
  /** Level 1: CPU a second (ms) while the bot does nothing, read after its idle collection. */
  idleCpuMsPerSecond?: number;
  /** (RSS peak during the turns − idle RSS before them) / turns: what a turn in flight holds. */
  inFlightBytesPerTurn: number;
  lastTokenToFinalMs: ReturnType<typeof summarize>;
  /** Last token → the thread's chat.stopStream: the final's first write (the peer's only one). */
  lastTokenToStopMs: ReturnType<typeof summarize>;
  wallMs: number;
  violations: string[];
}

let runs = 0;

/**
 * BENCH_WARMUP_TURNS=<n>: n concurrent warm-up turns per bot instead of one (how much of a figure is a
 * fresh process's first turns: lazy compilation, JIT tiers, first-use initialisation).
 */
export const warmupTurns = (): number => Number(process.env.BENCH_WARMUP_TURNS ?? '1') || 1;

/** Waits until every thread shows its answer's last word and Slack has been quiet for QUIET_MS. */
export async function settled(fakes: FakesHandle, threads: string[]): Promise<FakesSnapshot> {
  const deadline = Date.now() + TURN_TIMEOUT_MS;
  let lastCount = -1;
  let quietSince = Date.now();
  for (;;) {
    const snapshot = await fakes.snapshot();
    const ended = new Set(snapshot.slack.filter((c) => c.hasEnd && c.thread).map((c) => c.thread!));
    if (snapshot.slack.length !== lastCount) {
      lastCount = snapshot.slack.length;
      quietSince = Date.now();
    }
    const allEnded = threads.every((t) => ended.has(t));
    if ((allEnded && Date.now() - quietSince >= QUIET_MS) || Date.now() > deadline) return snapshot;
    await sleep(POLL_MS);
  }
}

async function turns(bot: BotProcess, fakes: FakesHandle, count: number, concurrent: boolean) {
  const run = ++runs;
  const tag = (i: number) => `bench-t9${run}-${i}`;
  const started: TaggedThread[] = [];
  if (concurrent) {
    const threads = await Promise.all(Array.from({ length: count }, (_, i) => bot.mention(tag(i), i)));
    started.push(...threads.map((thread, i) => ({ tag: tag(i), thread })));
  } else {
    for (let i = 0; i < count; i++) {
      const thread = await bot.mention(tag(i), i);
      started.push({ tag: tag(i), thread });
      await settled(fakes, [thread]);
    }
  }
  return {
    turns: started,
    snapshot: await settled(
      fakes,
      started.map((t) => t.thread),
    ),
  };
}

export async function runLevel(
  ctx: BenchContext,
  kind: BotKind,
  level: number,
  start: BotStart = {},
  /** Runs after the measured turns, before the bot is stopped (not measured). */
  beforeStop?: () => Promise<void>,
): Promise<LevelRun> {
  const { options, fakes } = ctx;
  const bot = await startBot(kind, fakes, start);
  try {
    await sleep(SETTLE_MS);
    const startRssBytes = bot.rssBytes();
    await fakes.reset();
    const warmup = warmupTurns();
    await turns(bot, fakes, warmup, warmup > 1);
    await sleep(SETTLE_MS);
    const idleRssBytes = bot.rssBytes();
    await fakes.reset();
    const count = level === 1 ? options.peerSequentialTurns : level;
    const cpuBefore = bot.cpuMs();
    const threadsBefore = bot.cpuByThreadMs();
    const started = performance.now();
    let runPeakRssBytes = bot.rssBytes();
    const sampler = setInterval(() => {
      runPeakRssBytes = Math.max(runPeakRssBytes, bot.rssBytes());
    }, RSS_SAMPLE_MS);
    const { turns: tagged, snapshot } = await turns(bot, fakes, count, level > 1).finally(() =>
      clearInterval(sampler),
    );
    const threads = tagged.map((t) => t.thread);
    // The quiet wait is in both bots' figures alike (timers only, no work).
    const wallMs = performance.now() - started - QUIET_MS;
    const cpuMs = bot.cpuMs() - cpuBefore;
    const cpuPerTurnByThreadMs: Record<string, number> = {};
    for (const [name, used] of Object.entries(bot.cpuByThreadMs()))
      cpuPerTurnByThreadMs[name] = (used - (threadsBefore[name] ?? 0)) / count;
    const ended = new Set(snapshot.slack.filter((c) => c.hasEnd && c.thread).map((c) => c.thread!));
    const callsByMethod: Record<string, number> = {};
    for (const call of snapshot.slack) callsByMethod[call.method] = (callsByMethod[call.method] ?? 0) + 1;
    const idleCpuMsPerSecond = level === 1 ? await idleCpu(bot) : undefined;
    await beforeStop?.();
    return {
      bot: kind,
      turns: count,
      errors: threads.filter((t) => !ended.has(t)).length + snapshot.slack.filter((c) => !c.ok).length,
      cpuPerTurnMs: cpuMs / count,
      cpuPerTurnByThreadMs,
      slackCallsPerTurn: snapshot.slack.length / count,
      callsByMethod,
      startRssBytes,
      idleRssBytes,
      peakRssBytes: bot.peakRssBytes(),
      runPeakRssBytes,
      inFlightBytesPerTurn: Math.max(0, runPeakRssBytes - idleRssBytes) / count,
      ...(idleCpuMsPerSecond !== undefined ? { idleCpuMsPerSecond } : {}),
      lastTokenToFinalMs: summarize(lastTokenToFinal(snapshot, tagged)),
      lastTokenToStopMs: summarize(lastTokenToStop(snapshot, tagged)),
      wallMs,
      violations: snapshot.violations,
    };
  } finally {
    await bot.stop();
  }
}

/** CPU a second (ms) over IDLE_CPU_WINDOW_MS, once the last turn is IDLE_CPU_AFTER_MS behind (it settled QUIET_MS ago). */
async function idleCpu(bot: BotProcess): Promise<number> {
  await sleep(IDLE_CPU_AFTER_MS - QUIET_MS);
  const before = bot.onCpuNs();
  await sleep(IDLE_CPU_WINDOW_MS);
  return (bot.onCpuNs() - before) / 1e6 / (IDLE_CPU_WINDOW_MS / 1000);
}

export const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.NaN);
export const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : 'n/a');

/** Calls per turn by method, "method n / m" for Scout and the peer, most frequent (either bot) first. */
function methodsPerTurn(scout: LevelRun, peer: LevelRun): string {
  const methods = [...new Set([...Object.keys(scout.callsByMethod), ...Object.keys(peer.callsByMethod)])];
  const per = (r: LevelRun, m: string) => (r.callsByMethod[m] ?? 0) / r.turns;
  return methods
    .sort((a, b) => per(scout, b) + per(peer, b) - per(scout, a) - per(peer, a))
    .map(
      (m) =>
        `${m.replace(/^(chat|assistant\.threads)\./, '')} ${per(scout, m).toFixed(1)} / ${per(peer, m).toFixed(1)}`,
    )
    .join(', ');
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

/** The headline rate where it is among the rates run, else the first of them. */
export const headlineRate = (options: BenchContext['options']): number =>
  options.peerTokensPerSecond.includes(options.peerHeadlineTokensPerSecond)
    ? options.peerHeadlineTokensPerSecond
    : options.peerTokensPerSecond[0]!;

/**
 * The runs of one scenario: level 1 (turns one by one) at the headline rate only (it measures a
 * lone turn, and at 20 tokens/s it alone would take minutes), every other level at every rate.
 */
function plan(options: BenchContext['options']): Array<{ level: number; rate: number }> {
  const rates = options.peerTokensPerSecond;
  const headline = headlineRate(options);
  return options.peerConcurrency.flatMap((level) =>
    level === 1 ? [{ level, rate: headline }] : rates.map((rate) => ({ level, rate })),
  );
}

/** One round of the headline pair: each bot's CPU per turn (ms). */
export interface CpuRound {
  scout: number;
  peer: number;
}

/**
 * The headline pair's CPU over `peerCpuRounds` rounds: the first round's, then fresh pairs of both
 * bots at the same level and rate, the one that goes first alternating (the machine's drift falls on
 * each alike). Only CPU is read from the extra rounds.
 */
async function moreCpuRounds(ctx: BenchContext, level: number, first: CpuRound): Promise<CpuRound[]> {
  const rounds = [first];
  for (let round = 2; round <= ctx.options.peerCpuRounds; round++) {
    const order: BotKind[] = round % 2 === 0 ? ['peer', 'scout'] : ['scout', 'peer'];
    const cpu: Partial<Record<BotKind, number>> = {};
    for (const kind of order) {
      ctx.log(`  [6] CPU round ${round}/${ctx.options.peerCpuRounds}: ${kind}, ${level} concurrent turns`);
      const run = await runLevel(ctx, kind, level);
      if (run.errors > 0) throw new Error(`scenario 6 CPU round ${round}: ${kind} had ${run.errors} errors`);
      cpu[kind] = run.cpuPerTurnMs;
    }
    rounds.push({ scout: cpu.scout!, peer: cpu.peer! });
  }
  return rounds;
}

export async function peerComparison(ctx: BenchContext): Promise<ScenarioResult> {
  const { options, fakes } = ctx;
  await ensureBuilt();
  const rows: Array<[string, string]> = [];
  const targets: TargetCheck[] = [];
  const levels: Array<{ level: number; tokensPerSecond: number; scout: LevelRun; peer: LevelRun }> = [];
  const headline = headlineRate(options);
  const check = (target: string, measured: string, met: boolean) => targets.push({ target, measured, met });
  /** The headline pair's rounds, when more than one ran. */
  let cpuRoundsMs: CpuRound[] | undefined;
  try {
    for (const { level, rate } of plan(options)) {
      const speed = fakeSpeed(options, rate);
      await fakes.configure({ ...speed, speed: { ...speed.speed, answerTokens: options.peerAnswerTokens } });
      const result: Partial<Record<BotKind, LevelRun>> = {};
      for (const kind of BOTS) {
        const what =
          level === 1 ? `${options.peerSequentialTurns} turns one by one` : `${level} concurrent turns`;
        ctx.log(`  [6] ${kind}: ${what} at ${rate} tokens/s`);
        result[kind] = await runLevel(ctx, kind, level);
      }
      const scout = result.scout!;
      const peer = result.peer!;
      levels.push({ level, tokensPerSecond: rate, scout, peer });
      const p95 = (r: LevelRun) => r.lastTokenToFinalMs.p95;
      const at = `${rate}/s N=${level}`;
      rows.push(
        [`${at} errors (Scout / peer)`, `${scout.errors} / ${peer.errors}`],
        [
          `${at} CPU per turn`,
          `${ms(scout.cpuPerTurnMs)} / ${ms(peer.cpuPerTurnMs)} = ${x(ratio(scout.cpuPerTurnMs, peer.cpuPerTurnMs))}`,
        ],
        [
          `${at} Slack calls per turn`,
          `${scout.slackCallsPerTurn.toFixed(1)} / ${peer.slackCallsPerTurn.toFixed(1)} = ${x(ratio(scout.slackCallsPerTurn, peer.slackCallsPerTurn))}`,
        ],
        [`${at} calls per turn by method`, methodsPerTurn(scout, peer)],
        [
          `${at} peak RSS`,
          `${mib(scout.peakRssBytes)} / ${mib(peer.peakRssBytes)} = ${x(ratio(scout.peakRssBytes, peer.peakRssBytes))}`,
        ],
        [
          `${at} idle RSS (start → after a turn)`,
          `${mib(scout.startRssBytes)} → ${mib(scout.idleRssBytes)} / ${mib(peer.startRssBytes)} → ${mib(peer.idleRssBytes)} = ${x(ratio(scout.idleRssBytes, peer.idleRssBytes))}`,
        ],
        [
          `${at} last token → final p50 / p95`,
          `${ms(scout.lastTokenToFinalMs.p50, 0)} / ${ms(p95(scout), 0)} vs ${ms(peer.lastTokenToFinalMs.p50, 0)} / ${ms(p95(peer), 0)}`,
        ],
        [
          `${at} last token → stream stop p50 / p95`,
          `${ms(scout.lastTokenToStopMs.p50, 0)} / ${ms(scout.lastTokenToStopMs.p95, 0)} vs ${ms(peer.lastTokenToStopMs.p50, 0)} / ${ms(peer.lastTokenToStopMs.p95, 0)}`,
        ],
      );
      if (scout.idleCpuMsPerSecond !== undefined && peer.idleCpuMsPerSecond !== undefined)
        rows.push([
          `${at} idle CPU (after the turns and the idle collection)`,
          `${scout.idleCpuMsPerSecond.toFixed(1)} / ${peer.idleCpuMsPerSecond.toFixed(1)} ms a second`,
        ]);
      if (level > 1)
        rows.push([
          `${at} memory per turn in flight`,
          `${kib(scout.inFlightBytesPerTurn)} / ${kib(peer.inFlightBytesPerTurn)} (RSS peak during the turns ${mib(scout.runPeakRssBytes)} / ${mib(peer.runPeakRssBytes)})`,
        ]);
      // Issue 30's targets, at 50 concurrent turns: calls and CPU at every rate (the headline rate's
      // CPU over `peerCpuRounds` rounds), the rest at the headline rate.
      if (level !== 50) continue;
      const calls = ratio(scout.slackCallsPerTurn, peer.slackCallsPerTurn);
      check(
        `${rate} tokens/s, 50 concurrent: Slack calls per turn ≤ 1.0× the Chat SDK bot`,
        x(calls),
        calls <= 1,
      );
      const first = { scout: scout.cpuPerTurnMs, peer: peer.cpuPerTurnMs };
      const pairs = rate === headline ? await moreCpuRounds(ctx, level, first) : [first];
      const cpuRounds = pairs.map((p) => ratio(p.scout, p.peer));
      const cpu = median(cpuRounds);
      if (cpuRounds.length > 1) {
        const interval = medianInterval(cpuRounds);
        rows.push(
          [
            `${at} CPU per turn in each round, Scout / peer`,
            pairs.map((p) => `${p.scout.toFixed(1)}/${p.peer.toFixed(1)}`).join(' ') + ' ms',
          ],
          [
            `${at} CPU per turn, Scout / peer in each round (median)`,
            `${cpuRounds.map(x).join(' / ')} (${x(cpu)}${interval ? `; ${x(interval.low)} to ${x(interval.high)}, ${(interval.coverage * 100).toFixed(1)} % interval of the median` : ''})`,
          ],
        );
        cpuRoundsMs = pairs;
      }
      check(
        `${rate} tokens/s, 50 concurrent chat turns: CPU per turn ≤ 0.45× the Chat SDK bot`,
        cpuRounds.length > 1 ? `${x(cpu)} (median of ${cpuRounds.length} rounds)` : x(cpu),
        cpu <= 0.45,
      );
      if (rate !== headline) continue;
      const peak = ratio(scout.peakRssBytes, peer.peakRssBytes);
      check('last token → final message ≤ 300 ms p95', ms(p95(scout), 0), p95(scout) <= 300);
      check('peak RSS ≤ 1.0× the Chat SDK bot', x(peak), peak <= 1);
      check('idle RSS ≤ 90 MiB', mib(scout.idleRssBytes), scout.idleRssBytes <= 90 * 2 ** 20);
      check('no errors', `${scout.errors} errors`, scout.errors === 0);
    }
    // Memory per turn in flight, read where the most turns were in flight at the headline rate.
    const widest = levels.filter((l) => l.tokensPerSecond === headline && l.level > 1).at(-1);
    if (widest) {
      const perTurn = widest.scout.inFlightBytesPerTurn;
      check(
        `memory per turn in flight ≤ 0.2 MiB (${widest.level} concurrent, ${headline} tokens/s)`,
        `${(perTurn / 2 ** 20).toFixed(2)} MiB`,
        perTurn <= 0.2 * 2 ** 20,
      );
    }
  } finally {
    await fakes.configure(fakeSpeed(options, options.tokensPerSecond));
  }
  return {
    id: 6,
    name: `Scout (chat mode) vs a minimal Chat SDK bot, separate processes (${options.peerTokensPerSecond.join(', ')} tokens/s; ${headline} the headline)`,
    rows,
    targets,
    data: {
      headlineTokensPerSecond: headline,
      levels,
      ...(cpuRoundsMs ? { cpuRatioRounds: cpuRoundsMs.map((p) => ratio(p.scout, p.peer)), cpuRoundsMs } : {}),
    },
  };
}
