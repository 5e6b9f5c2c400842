/**
 * A bot under test as its own process, started the way it runs in production: Scout from its
 * compiled build (`node dist/scout/main.js`, the bundle `npm start` runs; Slack HTTP mode), the peer from plain JavaScript. The
 * bench reads its CPU and memory from /proc (Linux), so the load generator and the fakes cost it
 * nothing, and posts signed `app_mention` events to it as Slack would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build, bundleEntry, entry, isStale } from '../scripts/build.mjs';
import { postSigned } from '../test/helpers/fake-slack-api.js';
import { startFlags } from '../test/helpers/start-command.js';
import { BENCH_TAVILY_KEY } from './fakes/fake-search.js';
import { BENCH_BOT_USER } from './fakes/fakes.js';

export const BOT_SIGNING_SECRET = 'bench-signing-secret';
const TEAM = 'T00FAKE00AA';
/** Linux reports CPU time in clock ticks of 1/100 s. */
const TICKS_PER_SECOND = 100;
const READY_TIMEOUT_MS = 60_000;

export type BotKind = 'scout' | 'peer';

export interface BotProcess {
  kind: BotKind;
  pid: number;
  /** User + system CPU of the bot process so far (10 ms resolution). */
  cpuMs(): number;
  /** User + system CPU per thread name (/proc/<pid>/task/*: main thread, V8 workers, libuv pool…). */
  cpuByThreadMs(): Record<string, number>;
  /**
   * Time on a CPU so far, all threads together, in nanoseconds (/proc/<pid>/task/<tid>/schedstat): the
   * precise reading, for windows too short for the 10 ms ticks of `cpuMs` (an idle minute's timers).
   */
  onCpuNs(): number;
  /** Resident memory now, and the most it has held since it started. */
  rssBytes(): number;
  peakRssBytes(): number;
  /** Posts a signed `app_mention` starting a new thread; resolves with the thread (`channel:ts`). */
  mention(tag: string, index: number): Promise<string>;
  stop(): Promise<void>;
}

/** Compiles Scout first when dist/ is older than the sources, as `npm start` does. */
export async function ensureBuilt(): Promise<void> {
  if (isStale() && !(await build(' for the benchmark'))) throw new Error('Scout did not compile');
}

/** What `npm start` runs: the bundle, or tsc's output where no bundle was made. */
export const scoutEntry = (): string => (existsSync(bundleEntry) ? bundleEntry : entry);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN) * 1024;
}

function procCpuMs(pid: number): number {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
}

/** One file of each of the process's threads (/proc/<pid>/task/<tid>/<file>), threads that ended skipped. */
function* taskFiles(pid: number, file: 'stat' | 'schedstat'): Generator<{ tid: string; text: string }> {
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/${file}`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    yield { tid, text };
  }
}

function procThreadCpuMs(pid: number): Record<string, number> {
  const byName: Record<string, number> = {};
  for (const { tid, text: stat } of taskFiles(pid, 'stat')) {
    const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpu = ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
    byName[name] = (byName[name] ?? 0) + cpu;
  }
  return byName;
}

function procOnCpuNs(pid: number): number {
  let total = 0;
  for (const { text } of taskFiles(pid, 'schedstat')) total += Number(text.split(' ')[0]);
  return total;
}

async function waitUntilUp(child: ChildProcess, url: string, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bot exited (${child.exitCode}):\n${output()}`);
    // Any HTTP answer means the receiver listens (Scout's /healthz rides on Bolt's server).
    const up = await fetch(url).then(
      () => true,
      () => false,
    );
    if (up) return;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`bot did not come up:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface BotEnv {
  llmBaseUrl: string;
  slackUrl: string;
  searchUrl: string;
}

export interface BotStart {
  /** Scout's mode (chat by default; agent searches the fake search API). */
  mode?: 'chat' | 'agent';
  /** Another checkout's compiled entry (`…/dist/src/main.js`), to measure an older Scout the same way. */
  entry?: string;
  /** More of Scout's variables, applied last (scenario 12: one search per turn, long time limits). */
  env?: Record<string, string>;
  /** Ends the channel ids of its mentions ("PEER" by default): two bots on one fake Slack keep apart. */
  channelTag?: string;
}

export async function startBot(kind: BotKind, fakes: BotEnv, start: BotStart = {}): Promise<BotProcess> {
  const port = await freePort();
  const common = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    PORT: String(port),
    NODE_ENV: 'production',
    OPENAI_API_KEY: 'sk-bench-key',
    OPENAI_BASE_URL: fakes.llmBaseUrl,
    SLACK_BOT_TOKEN: 'xoxb-bench-token',
    SLACK_SIGNING_SECRET: BOT_SIGNING_SECRET,
    SLACK_API_URL: fakes.slackUrl,
  };
  const scoutEnv = {
    AGENT_FUNCTION_CALL_MODEL: 'openai/bench-model',
    DEFAULT_MODE: start.mode ?? 'chat',
    // AGENT_READ_RESULTS=0: the fake results are example.com pages nobody serves (scenario 15 measures reading).
    ...(start.mode === 'agent'
      ? { TAVILY_API_KEY: BENCH_TAVILY_KEY, TAVILY_BASE_URL: fakes.searchUrl, AGENT_READ_RESULTS: '0' }
      : {}),
    STORE_URL: 'memory://',
    LOG_LEVEL: 'silent',
    LLM_TIMEOUT_MS: '120000',
    // Two simulated users send hundreds of turns at once: no per-user cap on running answers.
    MAX_TURNS_PER_USER: '0',
    ...start.env,
  };
  const script =
    kind === 'scout'
      ? (start.entry ?? scoutEntry())
      : fileURLToPath(new URL('./peer/chat-sdk-bot.mjs', import.meta.url));
  // BENCH_CPU_PROF=<dir>: Scout writes a V8 CPU profile there when it exits (where its time went).
  const profile = kind === 'scout' && process.env.BENCH_CPU_PROF;
  // BENCH_NODE_FLAGS: more of Node's/V8's flags for Scout (space-separated; e.g. `--trace-gc`, `--no-maglev`).
  const extraFlags = kind === 'scout' ? (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean) : [];
  const execArgs = [
    ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
    // Scout runs with the flags `npm start` and the Docker image give it; the peer with Node's own.
    ...(kind === 'scout' ? startFlags : []),
    ...extraFlags,
  ];
  const child = spawn(process.execPath, [...execArgs, script], {
    env: { ...common, ...(kind === 'scout' ? scoutEnv : { SLACK_BOT_USER_ID: BENCH_BOT_USER }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  await waitUntilUp(child, `${base}/healthz`, () => output);
  const pid = child.pid!;
  let events = 0;
  return {
    kind,
    pid,
    cpuMs: () => procCpuMs(pid),
    cpuByThreadMs: () => procThreadCpuMs(pid),
    onCpuNs: () => procOnCpuNs(pid),
    rssBytes: () => procStatus(pid, 'VmRSS'),
    peakRssBytes: () => procStatus(pid, 'VmHWM'),
    async mention(tag, index) {
      const channel = `C${String(Math.floor(index / 50)).padStart(8, '0')}${start.channelTag ?? 'PEER'}`;
      const ts = `${1_768_000_000 + index}.${String(++events).padStart(6, '0')}`;
      const body = JSON.stringify({
        token: 'x',
        team_id: TEAM,
        api_app_id: 'A00FAKEAPP01',
        type: 'event_callback',
        event_id: `EvPeer${kind}${events}${Date.now()}`,
        event_time: Math.floor(Date.now() / 1000),
        authorizations: [{ user_id: BENCH_BOT_USER, is_bot: true }],
        event: {
          type: 'app_mention',
          user: `U${String(index % 2).padStart(10, '0')}`,
          team: TEAM,
          ts,
          event_ts: ts,
          channel,
          text: `<@${BENCH_BOT_USER}> ${tag} What changed in the web search landscape this week?`,
        },
      });
      const res = await postSigned(`${base}/slack/events`, body, BOT_SIGNING_SECRET);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${kind} answered the event with HTTP ${res.status}`);
      return `${channel}:${ts}`;
    },
    async stop() {
      child.kill('SIGTERM');
      // A profiling Scout writes its main thread's profile only after it has stopped: give it time.
      const killer = setTimeout(() => child.kill('SIGKILL'), profile ? 60_000 : 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
