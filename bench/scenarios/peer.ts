/**
 * Scenario 6: Scout against a minimal Chat SDK bot (bench/peer/chat-sdk-bot.mjs), each in its own
 * process, on the same fakes in the same run: the same signed `app_mention` events, the same
 * OpenAI-compatible stream, the same fake Slack Web API. Scout runs in chat mode from its compiled
 * build. Per concurrency level and bot, a fresh process: started, warmed up with one turn, left idle
 * (idle RSS), then the level's turns (at level 1 one after another, else all at once).
 *
 * Measured from outside the bot: CPU from /proc (user + system, whole process, over the turns),
 * peak RSS (VmHWM), Slack Web API calls per turn (every method, as the fake recorded them), and
 * last token → final message, per thread: from the fake model writing the last token of that
 * thread's own answer stream to the last Web API call that writes that thread's answer message
 * (post, update, append or stop stream; metrics.ts lastTokenToFinal).
 */
import { type BotKind, type BotProcess, type BotStart, ensureBuilt, startBot } from '../bot-process.js';
import { type BenchContext, fakeSpeed, mib, ms, type ScenarioResult, type TargetCheck } from '../context.js';
import type { FakesHandle } from '../fakes/fakes-client.js';
import type { FakesSnapshot } from '../fakes/fakes.js';
import { lastTokenToFinal, sleep, summarize, type TaggedThread } from '../metrics.js';

const BOTS: BotKind[] = ['scout', 'peer'];
/** A turn is over when its answer's last word reached Slack and no Web API call came for this long. */
const QUIET_MS = 1_500;
const POLL_MS = 250;
const TURN_TIMEOUT_MS = 120_000;
/** Lets start-up allocations settle before the idle reading. */
const SETTLE_MS = 2_000;

export interface LevelRun {
  bot: BotKind;
  turns: number;
  errors: number;
  cpuPerTurnMs: number;
  slackCallsPerTurn: number;
  callsByMethod: Record<string, number>;
  startRssBytes: number;
  idleRssBytes: number;
  peakRssBytes: number;
  lastTokenToFinalMs: ReturnType<typeof summarize>;
  wallMs: number;
  violations: string[];
}

let runs = 0;

/** Waits until every thread shows its answer's last word and Slack has been quiet for QUIET_MS. */
async function settled(fakes: FakesHandle, threads: string[]): Promise<FakesSnapshot> {
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
): Promise<LevelRun> {
  const { options, fakes } = ctx;
  const bot = await startBot(kind, fakes, start);
  try {
    await sleep(SETTLE_MS);
    const startRssBytes = bot.rssBytes();
    await fakes.reset();
    await turns(bot, fakes, 1, false);
    await sleep(SETTLE_MS);
    const idleRssBytes = bot.rssBytes();
    await fakes.reset();
    const count = level === 1 ? options.peerSequentialTurns : level;
    const cpuBefore = bot.cpuMs();
    const started = performance.now();
    const { turns: tagged, snapshot } = await turns(bot, fakes, count, level > 1);
    const threads = tagged.map((t) => t.thread);
    // The quiet wait is in both bots' figures alike (timers only, no work).
    const wallMs = performance.now() - started - QUIET_MS;
    const cpuMs = bot.cpuMs() - cpuBefore;
    const ended = new Set(snapshot.slack.filter((c) => c.hasEnd && c.thread).map((c) => c.thread!));
    const callsByMethod: Record<string, number> = {};
    for (const call of snapshot.slack) callsByMethod[call.method] = (callsByMethod[call.method] ?? 0) + 1;
    return {
      bot: kind,
      turns: count,
      errors: threads.filter((t) => !ended.has(t)).length + snapshot.slack.filter((c) => !c.ok).length,
      cpuPerTurnMs: cpuMs / count,
      slackCallsPerTurn: snapshot.slack.length / count,
      callsByMethod,
      startRssBytes,
      idleRssBytes,
      peakRssBytes: bot.peakRssBytes(),
      lastTokenToFinalMs: summarize(lastTokenToFinal(snapshot, tagged)),
      wallMs,
      violations: snapshot.violations,
    };
  } finally {
    await bot.stop();
  }
}

export const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.NaN);
export const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : 'n/a');

export async function peerComparison(ctx: BenchContext): Promise<ScenarioResult> {
  const { options, fakes } = ctx;
  await ensureBuilt();
  await fakes.configure({
    ...fakeSpeed(options, options.peerTokensPerSecond),
    speed: {
      ...fakeSpeed(options, options.peerTokensPerSecond).speed,
      answerTokens: options.peerAnswerTokens,
    },
  });
  const rows: Array<[string, string]> = [];
  const targets: TargetCheck[] = [];
  const levels: Array<{ level: number; scout: LevelRun; peer: LevelRun }> = [];
  try {
    for (const level of options.peerConcurrency) {
      const result: Partial<Record<BotKind, LevelRun>> = {};
      for (const kind of BOTS) {
        ctx.log(
          `  [6] ${kind}: ${level === 1 ? `${options.peerSequentialTurns} turns one by one` : `${level} concurrent turns`}`,
        );
        result[kind] = await runLevel(ctx, kind, level);
      }
      const scout = result.scout!;
      const peer = result.peer!;
      levels.push({ level, scout, peer });
      const p95 = (r: LevelRun) => r.lastTokenToFinalMs.p95;
      rows.push(
        [`N=${level} errors (Scout / peer)`, `${scout.errors} / ${peer.errors}`],
        [
          `N=${level} CPU per turn`,
          `${ms(scout.cpuPerTurnMs)} / ${ms(peer.cpuPerTurnMs)} = ${x(ratio(scout.cpuPerTurnMs, peer.cpuPerTurnMs))}`,
        ],
        [
          `N=${level} Slack calls per turn`,
          `${scout.slackCallsPerTurn.toFixed(1)} / ${peer.slackCallsPerTurn.toFixed(1)} = ${x(ratio(scout.slackCallsPerTurn, peer.slackCallsPerTurn))}`,
        ],
        [
          `N=${level} peak RSS`,
          `${mib(scout.peakRssBytes)} / ${mib(peer.peakRssBytes)} = ${x(ratio(scout.peakRssBytes, peer.peakRssBytes))}`,
        ],
        [
          `N=${level} idle RSS (start → after a turn)`,
          `${mib(scout.startRssBytes)} → ${mib(scout.idleRssBytes)} / ${mib(peer.startRssBytes)} → ${mib(peer.idleRssBytes)} = ${x(ratio(scout.idleRssBytes, peer.idleRssBytes))}`,
        ],
        [
          `N=${level} last token → final p50 / p95`,
          `${ms(scout.lastTokenToFinalMs.p50, 0)} / ${ms(p95(scout), 0)} vs ${ms(peer.lastTokenToFinalMs.p50, 0)} / ${ms(p95(peer), 0)}`,
        ],
      );
      if (level === 50) {
        const check = (target: string, measured: string, met: boolean) =>
          targets.push({ target, measured, met });
        const cpu = ratio(scout.cpuPerTurnMs, peer.cpuPerTurnMs);
        const calls = ratio(scout.slackCallsPerTurn, peer.slackCallsPerTurn);
        const peak = ratio(scout.peakRssBytes, peer.peakRssBytes);
        check('50 concurrent chat turns: CPU per turn ≤ 0.5× the Chat SDK bot', x(cpu), cpu <= 0.5);
        check('Slack calls per turn ≤ 1.0× the Chat SDK bot', x(calls), calls <= 1);
        check('peak RSS ≤ 1.0× the Chat SDK bot', x(peak), peak <= 1);
        check('idle RSS ≤ 90 MiB', mib(scout.idleRssBytes), scout.idleRssBytes <= 90 * 2 ** 20);
        check('last token → final message ≤ 1 s p95', ms(p95(scout), 0), p95(scout) <= 1_000);
        check('no errors', `${scout.errors} errors`, scout.errors === 0);
      }
    }
  } finally {
    await fakes.configure(fakeSpeed(options, options.tokensPerSecond));
  }
  return {
    id: 6,
    name: 'Scout (chat mode) vs a minimal Chat SDK bot, separate processes',
    rows,
    targets,
    data: { levels },
  };
}
