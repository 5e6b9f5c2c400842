/**
 * Runs the real bot process (`node --import tsx src/main.ts`) in Slack HTTP mode against loopback
 * fakes, capturing everything it writes. Used by the shutdown and log-scan tests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { postSigned } from '../helpers/fake-slack-api.js';
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

export async function spawnScout(
  env: Record<string, string>,
  port: number,
  /** Node and V8 flags before the script (e.g. the start script's). */
  nodeFlags: string[] = [],
): Promise<ScoutProcess> {
  let output = '';
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'src/main.ts'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Decoded as a stream: a character cut between two reads stays whole.
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;

  // Up when /healthz answers (served by Bolt's receiver as a custom route in Slack HTTP mode).
  const deadline = Date.now() + 20_000;
  let code: number | null | undefined;
  void exited.then((c) => {
    code = c;
  });
  for (;;) {
    if (code !== undefined) throw new Error(`scout exited early (${code}):\n${output}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`scout did not come up:\n${output}`);
    }
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

export { DM_CHANNEL };
