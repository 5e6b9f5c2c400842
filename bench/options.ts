/**
 * Benchmark sizes and speeds: defaults finish in about 12–15 minutes on 2 cores (scenario 6 alone
 * about 10, at three token rates), plus about 2.5 for scenario 13 (real time under Slack's Tier 3)
 * and one for scenario 14; every value can be
 * changed with an environment variable or a `--name=value` flag (`--turns=20` = `BENCH_TURNS=20`).
 * `--quick` shrinks everything for a one-minute sanity run.
 */
export interface BenchOptions {
  /** Which scenarios run, in this order (1–14, see run.ts). The concurrent one runs last by default so
   * the peak RSS it leaves behind does not distort the memory readings of the others. */
  scenarios: number[];
  /** Scenario 1: sequential agent turns measured (after WARMUP_TURNS). */
  turns: number;
  /** Scenario 2: concurrent turn counts. */
  concurrency: number[];
  /** Scenario 3: idle conversation histories written to the store, and turns measured with them. */
  idleSessions: number;
  idleTurns: number;
  /** Scenario 4: sequential turns per streaming mode. */
  firstTokenTurns: number;
  /** Scenario 5: sequential turns per store backend. */
  storeTurns: number;
  /** Scenario 6 (Scout vs the Chat SDK bot): concurrency levels (1 = turns one after another). */
  peerConcurrency: number[];
  /** Scenario 6: turns at level 1, one after another. */
  peerSequentialTurns: number;
  /** Scenario 6: answer length (both bots get the same stream). */
  peerAnswerTokens: number;
  /**
   * Scenario 6: stream speeds, each run with the peer in the same run (real models stream 20–100
   * tokens/s; the sequential scenarios' fast rate would hide what pacing by the clock costs). Level 1
   * runs at the headline rate only.
   */
  peerTokensPerSecond: number[];
  /** Scenarios 6 and 11: the rate their targets are read at. */
  peerHeadlineTokensPerSecond: number;
  /**
   * Scenario 6: how many times the headline pair (50 concurrent turns at the headline rate) runs for
   * the CPU target, the order of the two bots alternating; the target reads the median ratio. One run
   * spreads about ±0.08× on 2 vCPUs, so a single reading near 0.45× says little.
   */
  peerCpuRounds: number;
  /** Scenario 11: turns in Scout's own process (agent, or chat for A/B runs), levels and rounds per build. */
  agentMode: string;
  agentConcurrency: number[];
  agentRounds: number;
  /** Scenario 11: another checkout's compiled entry (`…/dist/src/main.js`) measured alongside. */
  agentBaseline: string;
  /** Scenario 18: browser sessions streaming at once (and terminal turns at once, side by side). */
  webSessions: number;
  /** Scenario 18: rounds of both bursts (which surface goes first alternates); targets read medians. */
  webRounds: number;
  /** Scenario 18: page loads in chromium timed (after one uncounted load). */
  webPageLoads: number;
  /** Scenario 7: cold starts timed per command (medians reported). */
  startRuns: number;
  /** Scenario 12: agent turns posted at once to Scout as its own process. */
  massTurns: number;
  /** Scenario 13: ~40k-character answers at once in one workspace under Slack's Tier 3. */
  workspaceAnswers: number;
  /** Scenario 8: conversions measured per 512 KB page. */
  htmlRuns: number;
  /** Scenario 14: measured passes over the page corpus and the hostile pages. */
  readerRuns: number;
  /**
   * Scenario 14: only these real-page corpora, without the timing and hostile passes (comma-separated
   * aeb, traf, wcxb, wcxb:dev, wcxb:test, speed; empty: the whole scenario). See reader-corpora.ts.
   */
  readerCorpus: string;
  /** Scenario 9: context assemblies measured per case. */
  contextRuns: number;
  /** Model speed of the sequential scenarios (fast, so many turns fit in the time). */
  firstTokenMs: number;
  tokensPerSecond: number;
  /** Model speed of the concurrent scenario (a realistic per-stream rate). */
  concurrentTokensPerSecond: number;
  answerTokens: number;
  searches: number;
  searchLatencyMs: number;
  /** The fake LLM's write tick. */
  tickMs: number;
  /** Scout's log level during the run (silent, or info written to /dev/null). */
  logLevel: string;
  redisUrl: string;
  /** Run the fakes in this process instead of a child (smoke test). */
  inProcessFakes: boolean;
  /** Where the JSON result goes. */
  out: string;
}

/** Turns run first and thrown away: JIT warm-up, connection pools, users.info cache. */
export const WARMUP_TURNS = 2;

const DEFAULTS: BenchOptions = {
  scenarios: [1, 3, 4, 5, 6, 11, 7, 8, 14, 15, 16, 9, 10, 12, 13, 2],
  turns: 30,
  concurrency: [100, 500],
  idleSessions: 10_000,
  idleTurns: 8,
  firstTokenTurns: 8,
  storeTurns: 10,
  peerConcurrency: [1, 50, 300],
  peerSequentialTurns: 5,
  peerAnswerTokens: 300,
  peerTokensPerSecond: [20, 50, 100],
  peerHeadlineTokensPerSecond: 50,
  peerCpuRounds: 1,
  agentMode: 'agent',
  agentConcurrency: [50],
  agentRounds: 2,
  agentBaseline: '',
  webSessions: 300,
  webRounds: 5,
  webPageLoads: 5,
  startRuns: 7,
  massTurns: 1_000,
  workspaceAnswers: 16,
  htmlRuns: 5,
  readerRuns: 5,
  readerCorpus: '',
  contextRuns: 3,
  firstTokenMs: 100,
  tokensPerSecond: 500,
  concurrentTokensPerSecond: 50,
  answerTokens: 400,
  searches: 2,
  searchLatencyMs: 100,
  tickMs: 20,
  logLevel: 'silent',
  redisUrl: 'redis://127.0.0.1:6379',
  inProcessFakes: false,
  out: 'bench/results/latest.json',
};

const QUICK: Partial<BenchOptions> = {
  turns: 8,
  concurrency: [50],
  idleSessions: 1_000,
  idleTurns: 3,
  firstTokenTurns: 3,
  storeTurns: 3,
  peerConcurrency: [1, 10],
  peerSequentialTurns: 2,
  peerAnswerTokens: 100,
  startRuns: 3,
  webSessions: 50,
  webRounds: 1,
  webPageLoads: 3,
  massTurns: 100,
  workspaceAnswers: 4,
  htmlRuns: 2,
  readerRuns: 2,
  contextRuns: 1,
};

const toKebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const toEnv = (key: string) => `BENCH_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

function parseValue(sample: unknown, raw: string, name: string): unknown {
  if (Array.isArray(sample)) return raw.split(',').map((x) => parseValue(0, x.trim(), name));
  if (typeof sample === 'number') {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: expected a number, got "${raw}"`);
    return n;
  }
  if (typeof sample === 'boolean') return raw === '' || raw === 'true' || raw === '1';
  return raw;
}

export function parseOptions(
  argv: string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
): BenchOptions {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new Error(`unknown argument "${arg}" (use --name=value)`);
    flags.set(m[1]!, m[2] ?? '');
  }
  const options: BenchOptions = { ...DEFAULTS, ...(flags.has('quick') ? QUICK : {}) };
  if (env.REDIS_URL) options.redisUrl = env.REDIS_URL;
  const record = options as unknown as Record<string, unknown>;
  for (const key of Object.keys(DEFAULTS)) {
    const raw = flags.get(toKebab(key)) ?? env[toEnv(key)];
    if (raw !== undefined) record[key] = parseValue(DEFAULTS[key as keyof BenchOptions], raw, key);
  }
  return options;
}
