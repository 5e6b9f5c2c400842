/**
 * Scenario 12: 1,000 agent turns at once against Scout as its own process (issue 19). Scout runs
 * from its compiled build in Slack HTTP mode, agent mode, memory store; the fake function-call model
 * decides to search once, the fake search answers, then the answer streams; the fake Slack Web API
 * takes every call. All events are posted at once, each starting its own thread.
 *
 * Measured from outside the bot (so the load generator and the fakes cost it nothing): errors (a
 * thread whose answer never ended, a refused Web API call, an event not acknowledged with 200, an
 * event acknowledged after Slack's 3 s: Slack counts that a failure and sends the event again), wall
 * per turn from posting the event to the last Web API call that writes the answer's message (p50,
 * p95, and their ratio: the fairness target), CPU of the bot process over the run, peak RSS (VmHWM).
 */
import { type BotProcess, ensureBuilt, startBot } from '../bot-process.js';
import { type BenchContext, fakeSpeed, mib, ms, type ScenarioResult } from '../context.js';
import type { FakesHandle } from '../fakes/fakes-client.js';
import type { FakesSnapshot, SlackCall } from '../fakes/fakes.js';
import { MESSAGE_WRITES, sleep, summarize } from '../metrics.js';

/** The target: every turn answered, the slowest 5 % within 1.5× the median wall time. */
const FAIRNESS_TARGET = 1.5;
/** Done when every thread shows its answer's last word and Slack was quiet this long. */
const QUIET_MS = 2_000;
/** Snapshots of a thousand turns' calls cross a process boundary: poll gently. */
const POLL_MS = 1_000;
const RUN_TIMEOUT_MS = 600_000;
const SETTLE_MS = 2_000;
/** Slack treats an event not acknowledged within 3 s as failed and retries it. */
export const SLACK_ACK_LIMIT_MS = 3_000;

/** Acknowledgements Slack would have counted as failures. */
export const lateAcks = (ackMs: number[]): number => ackMs.filter((v) => v > SLACK_ACK_LIMIT_MS).length;

async function settled(fakes: FakesHandle, threads: Set<string>): Promise<FakesSnapshot> {
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  let lastCount = -1;
  let quietSince = Date.now();
  for (;;) {
    const snapshot = await fakes.snapshot();
    if (snapshot.slack.length !== lastCount) {
      lastCount = snapshot.slack.length;
      quietSince = Date.now();
    }
    const ended = new Set(snapshot.slack.filter((c) => c.hasEnd && c.thread).map((c) => c.thread!));
    const allEnded = [...threads].every((t) => ended.has(t));
    if ((allEnded && Date.now() - quietSince >= QUIET_MS) || Date.now() > deadline) return snapshot;
    await sleep(POLL_MS);
  }
}

/** Wall per thread: event posted → the last write of the answer's message. */
function wallTimes(snapshot: FakesSnapshot, postedAt: Map<string, number>): Map<string, number> {
  const last = new Map<string, SlackCall>();
  const ended = new Set<string>();
  for (const call of snapshot.slack) {
    if (!call.thread || !MESSAGE_WRITES.has(call.method)) continue;
    if (call.hasEnd) ended.add(call.thread);
    const prev = last.get(call.thread);
    if (!prev || call.at >= prev.at) last.set(call.thread, call);
  }
  const out = new Map<string, number>();
  for (const [thread, posted] of postedAt) {
    const call = last.get(thread);
    if (call && ended.has(thread)) out.set(thread, call.at - posted);
  }
  return out;
}

async function postAll(bot: BotProcess, count: number, run: number) {
  const postedAt = new Map<string, number>();
  const ackedAt = new Map<string, number>();
  const ackMs: number[] = [];
  const refused: string[] = [];
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const posted = Date.now();
      try {
        const thread = await bot.mention(`bench-t12${run}-${i}`, i);
        postedAt.set(thread, posted);
        ackedAt.set(thread, Date.now());
        ackMs.push(Date.now() - posted);
      } catch (err) {
        refused.push(err instanceof Error ? err.message : String(err));
      }
    }),
  );
  return { postedAt, ackedAt, ackMs, refused };
}

export async function massAgentTurns(ctx: BenchContext): Promise<ScenarioResult> {
  const { options, fakes } = ctx;
  const n = options.massTurns;
  await ensureBuilt();
  const speed = fakeSpeed(options, options.concurrentTokensPerSecond);
  await fakes.configure({ ...speed, speed: { ...speed.speed, searchesPerTurn: 1 } });
  const bot = await startBot('scout', fakes, {
    mode: 'agent',
    env: {
      AGENT_MAX_TOOL_CALLS: '1',
      // Never "sufficient" early: the count limit ends the tool phase after exactly one search.
      AGENT_MIN_RESULT_CHARS: '100000',
      AGENT_MAX_EXECUTION_TIME: '300',
      LLM_TIMEOUT_MS: '300000',
      SEARCH_PROVIDER: 'tavily',
    },
  });
  try {
    await sleep(SETTLE_MS);
    // One warm-up turn (JIT, connection pools, users.info cache), then the real run.
    await fakes.reset();
    const warm = await postAll(bot, 1, 0);
    await settled(fakes, new Set(warm.postedAt.keys()));
    await fakes.reset();
    ctx.log(`  [12] ${n} concurrent agent turns`);
    const cpuBefore = bot.cpuMs();
    const started = performance.now();
    const { postedAt, ackedAt, ackMs, refused } = await postAll(bot, n, 1);
    const postedMs = performance.now() - started;
    const snapshot = await settled(fakes, new Set(postedAt.keys()));
    const durationMs = performance.now() - started - QUIET_MS;
    const cpuMs = bot.cpuMs() - cpuBefore;
    const walls = wallTimes(snapshot, postedAt);
    const unfinished = [...postedAt.keys()].filter((t) => !walls.has(t));
    const failedCalls = snapshot.slack.filter((c) => !c.ok);
    const late = lateAcks(ackMs);
    const errors = refused.length + late + unfinished.length + failedCalls.length;
    const wall = summarize([...walls.values()]);
    const ack = summarize(ackMs);
    // The turn itself, once Scout had the event: acknowledged → the answer's last write.
    const afterAck = summarize(
      [...walls].map(([thread, w]) => w - ((ackedAt.get(thread) ?? 0) - (postedAt.get(thread) ?? 0))),
    );
    const fairness = wall.p95 / wall.p50;
    const callsByMethod: Record<string, number> = {};
    for (const call of snapshot.slack) callsByMethod[call.method] = (callsByMethod[call.method] ?? 0) + 1;
    const sec = (v: number) => `${(v / 1000).toFixed(1)} s`;
    return {
      id: 12,
      name: `${n} concurrent agent turns, Scout as its own process (search once, then answer)`,
      rows: [
        [
          'errors',
          `${errors} (${refused.length} events refused, ${late} acknowledged after ${SLACK_ACK_LIMIT_MS / 1000} s, ${unfinished.length} answers unfinished, ${failedCalls.length} Web API calls refused)`,
        ],
        [
          'all events acknowledged',
          `${sec(postedMs)} (event posted → HTTP 200 p50 ${sec(ack.p50)}, p95 ${sec(ack.p95)})`,
        ],
        ['all done', sec(durationMs)],
        ['wall per turn p50 / p95 / max', `${sec(wall.p50)} / ${sec(wall.p95)} / ${sec(wall.max)}`],
        ['p95 / p50', `${fairness.toFixed(2)}×`],
        ['acknowledged → answer done p50 / p95', `${sec(afterAck.p50)} / ${sec(afterAck.p95)}`],
        ['CPU', `${sec(cpuMs)} total, ${ms(cpuMs / n)} per turn`],
        ['peak RSS', mib(bot.peakRssBytes())],
        ['Web API calls', `${snapshot.slack.length} (${(snapshot.slack.length / n).toFixed(1)} per turn)`],
      ],
      targets: [
        {
          target: `${n} concurrent agent turns with zero errors`,
          measured: `${errors} errors`,
          met: errors === 0,
        },
        {
          target: `${n} concurrent agent turns: p95 wall ≤ ${FAIRNESS_TARGET}× p50`,
          measured: `${fairness.toFixed(2)}×`,
          met: errors === 0 && fairness <= FAIRNESS_TARGET,
        },
      ],
      data: {
        turns: n,
        errors,
        lateAcks: late,
        refusedSamples: refused.slice(0, 5),
        unfinishedSamples: unfinished.slice(0, 5),
        failedCallSamples: failedCalls.slice(0, 5),
        postedMs,
        ackMs: ack,
        afterAckMs: afterAck,
        durationMs,
        wallMs: wall,
        cpuMs,
        peakRssBytes: bot.peakRssBytes(),
        webApiCalls: snapshot.slack.length,
        callsByMethod,
        llmCalls: snapshot.llm.length,
        searches: snapshot.search.length,
        violations: snapshot.violations.slice(0, 20),
      },
    };
  } finally {
    await bot.stop();
    await fakes.configure(fakeSpeed(options, options.tokensPerSecond));
  }
}
