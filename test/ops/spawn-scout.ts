/**
 * Runs the real bot process (`node --import tsx src/main.ts`) in Slack HTTP mode against loopback
 * fakes, capturing everything it writes. Used by the process tests (shutdown, log scan, idle collection,
 * the SQLite file deleted); `scoutOnFakes` sets up the fakes and the clean-up for a describe block.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { type FakeSlackApi, postSigned, startFakeSlackApi } from '../helpers/fake-slack-api.js';
import { DM_CHANNEL, dmEventCallback } from '../helpers/slack-events.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SIGNING_SECRET = 'S3CR3T-signing-secret-0003';

export interface ScoutProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** stdout and stderr together, as written so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** Posts a signed DM `message` event, as Slack would. */
  dm(text: string, ts: string): Promise<Response>;
  kill(): void;
}

/**
 * What a spawned Scout needs to reach the fakes: the model, the Slack Web API (HTTP mode, signed with
 * SIGNING_SECRET), no search, the memory store and info logs; `extra` adds or overrides.
 */
export function fakesEnv(
  fakes: { llm: { baseUrl: string }; slack: { url: string } },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    OPENAI_API_KEY: 'sk-test-scout-process-key',
    OPENAI_BASE_URL: fakes.llm.baseUrl,
    AGENT_FUNCTION_CALL_MODEL: 'openai/test-model',
    SLACK_BOT_TOKEN: 'xoxb-test-scout-process-token',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fakes.slack.url,
    SEARCH_PROVIDER: 'none',
    STORE_URL: 'memory://',
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/**
 * Starts Scout on `port`, or (without one) on a port from the OS: PORT=0, and the port Scout logs
 * as it starts listening ("slack listening (HTTP mode)", so LOG_LEVEL info or lower), instead of a
 * port found free a moment earlier that another process may take first.
 */
export async function spawnScout(
  env: Record<string, string>,
  port?: number,
  /** Node and V8 flags before the script (e.g. the start script's). */
  nodeFlags: string[] = [],
): Promise<ScoutProcess> {
  let output = '';
  let heard: (() => void) | undefined;
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'src/main.ts'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port ?? 0), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Decoded as a stream: a character cut between two reads stays whole.
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    output += d;
    heard?.();
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    output += d;
    heard?.();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let code: number | null | undefined;
  void exited.then((c) => {
    code = c;
  });
  const deadline = Date.now() + 20_000;
  const giveUp = (why: string) => {
    child.kill('SIGKILL');
    return new Error(`scout ${why}:\n${output}`);
  };

  // The port it listens on: as it says so in its log (waited for as output arriving, not polled).
  while (port === undefined) {
    port = listeningPort(output);
    if (port !== undefined) break;
    if (code !== undefined) throw new Error(`scout exited early (${code}):\n${output}`);
    if (Date.now() > deadline) throw giveUp('never said which port it listens on (LOG_LEVEL info?)');
    await Promise.race([
      new Promise<void>((resolve) => {
        heard = resolve;
      }),
      exited,
      new Promise((resolve) => setTimeout(resolve, 1_000)),
    ]);
    heard = undefined;
  }
  const url = `http://127.0.0.1:${port}`;

  // Up when /healthz answers (served by Bolt's receiver as a custom route in Slack HTTP mode).
  for (;;) {
    if (code !== undefined) throw new Error(`scout exited early (${code}):\n${output}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw giveUp('did not come up');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    child,
    url,
    output: () => output,
    exited,
    dm(text, ts) {
      const body = JSON.stringify(dmEventCallback(text, ts));
      return postSigned(`${url}/slack/events`, body, SIGNING_SECRET);
    },
    kill: () => child.kill('SIGKILL'),
  };
}

/** The port of the log line "slack listening (HTTP mode)" in `output` (JSON lines), if there is one yet. */
function listeningPort(output: string): number | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes('slack listening (HTTP mode)')) continue;
    try {
      const port = (JSON.parse(line) as { port?: unknown }).port;
      if (typeof port === 'number' && port > 0) return port;
    } catch {
      // a line still being written: read again when more arrives
    }
  }
  return undefined;
}

export interface ScoutOnFakes {
  /** This test's fake model and fake Slack Web API (fresh for each test). */
  readonly llm: FakeOpenAI;
  readonly slack: FakeSlackApi;
  /** `fakesEnv` for this test's fakes. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Spawns Scout on a port from the OS; it is killed after the test. */
  spawn(env: Record<string, string>, nodeFlags?: string[]): Promise<ScoutProcess>;
  /** The Scout spawned in this test, if any. */
  readonly scout: ScoutProcess | undefined;
  /** Everything shown in the DM thread started at `ts`: native-stream chunks joined, text and blocks. */
  shownIn(ts: string): string;
}

/**
 * For each test of the calling describe block: a fake model and a fake Slack Web API before it; after
 * it, the Scout it spawned killed (and its exit awaited) and the fakes closed.
 */
export function scoutOnFakes(): ScoutOnFakes {
  let llm: FakeOpenAI | undefined;
  let slack: FakeSlackApi | undefined;
  let scout: ScoutProcess | undefined;
  beforeEach(async () => {
    llm = await startFakeOpenAI();
    slack = await startFakeSlackApi();
  });
  afterEach(async () => {
    scout?.kill();
    if (scout) await scout.exited;
    scout = undefined;
    await llm?.close();
    await slack?.close();
  });
  const fakes = {
    get llm() {
      if (!llm) throw new Error('the fakes start before each test');
      return llm;
    },
    get slack() {
      if (!slack) throw new Error('the fakes start before each test');
      return slack;
    },
    get scout() {
      return scout;
    },
    env: (extra: Record<string, string> = {}) => fakesEnv({ llm: fakes.llm, slack: fakes.slack }, extra),
    async spawn(env: Record<string, string>, nodeFlags: string[] = []) {
      scout = await spawnScout(env, undefined, nodeFlags);
      return scout;
    },
    shownIn: (ts: string) =>
      fakes.slack
        .messagesIn(DM_CHANNEL, ts)
        .map((m) => `${m.chunks.map((c) => c.text ?? '').join('')}\n${m.text}\n${JSON.stringify(m.blocks)}`)
        .join('\n'),
  };
  return fakes;
}

export { DM_CHANNEL };
