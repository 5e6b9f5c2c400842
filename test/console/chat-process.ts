/**
 * Runs the real terminal chat (`node --import tsx src/main.ts`, no Slack/Discord token) against a fake
 * OpenAI-compatible server, either through plain pipes or inside a pseudo-terminal (`script` from
 * util-linux), capturing stdout and stderr apart.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { repoRoot } from '../helpers/shared-folders.js';

export interface ChatProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  write(text: string): void;
  end(): void;
  readonly exited: Promise<number | null>;
  waitForOutput(predicate: (stdout: string) => boolean, what: string, timeoutMs?: number): Promise<void>;
}

export function chatEnv(llmBaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    OPENAI_API_KEY: 'sk-test-console-key',
    OPENAI_BASE_URL: llmBaseUrl,
    AGENT_FUNCTION_CALL_MODEL: 'openai/test-model',
    SEARCH_PROVIDER: 'none',
    STORE_URL: 'memory://',
    ...extra,
  };
}

/** `args` are the command after `node`: e.g. `['--import', 'tsx', 'src/main.ts']`. */
export function spawnChat(
  env: Record<string, string>,
  options: { pty?: boolean; args?: string[] } = {},
): ChatProcess {
  const node = [process.execPath, ...(options.args ?? ['--import', 'tsx', 'src/main.ts'])];
  // `script -q -e -c CMD /dev/null` runs CMD on a new pty: its stdin and stdout are a real terminal
  // (raw mode, Ctrl-C as a key), as when a person types.
  const child = options.pty
    ? spawn('script', ['-q', '-e', '-c', node.map(shellQuote).join(' '), '/dev/null'], {
        cwd: repoRoot,
        env: { ...env, TERM: 'xterm-256color', COLUMNS: '100', LINES: '40' },
        stdio: ['pipe', 'pipe', 'pipe'],
      })
    : spawn(node[0] as string, node.slice(1), { cwd: repoRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  // Decoded as a stream: a pty or pipe may cut one write anywhere, inside a multi-byte character
  // too (a loaded machine reads it late, in bigger and differently cut chunks). Decoding each chunk
  // on its own turned a ✅ cut in two into replacement characters: a screen the process never drew.
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (d: string) => {
    out += d;
  });
  child.stderr?.on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    write: (text) => child.stdin?.write(text),
    end: () => child.stdin?.end(),
    exited,
    async waitForOutput(predicate, what, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(out)) {
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${what}; stdout so far:\n${out}\nstderr:\n${err}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
