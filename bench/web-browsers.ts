/**
 * Scenario 18's browsers in a child process (web-browsers-process.ts): N web chat users, each with a
 * session, a conversation and its open event stream, whose parsing CPU stays out of the process
 * measured — as the fakes' does (fakes-client.ts), and as real browsers' would.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD_ENTRY = fileURLToPath(new URL('./web-browsers-process.ts', import.meta.url));

export interface BrowserTurn {
  tag: string;
  done: boolean;
  answerChars: number;
  /** The answer's last characters (the fake's END_MARKER proves the whole answer arrived). */
  answerEnd: string;
  error?: string;
}

export interface Browsers {
  /** `count` new users, each with a new conversation (no stream yet; earlier sessions are dropped). */
  prepare(origin: string, count: number): Promise<void>;
  /** Opens every session's event stream; resolves once each has its snapshot. */
  connect(): Promise<void>;
  /** Every session sends `<prefix>-<i> <question>` at once; resolves once each POST was answered. */
  send(prefix: string, question: string): Promise<void>;
  /** Resolves when every session's turn has ended (or after `timeoutMs`), with how each ended. */
  wait(timeoutMs: number): Promise<BrowserTurn[]>;
  /** Per turn tag, the events that changed its answer: [epoch ms received, answer length]; then forgets them. */
  observations(): Promise<Record<string, Array<[number, number]>>>;
  /** Closes every event stream. */
  disconnect(): Promise<void>;
  close(): Promise<void>;
}

export async function startBrowsers(): Promise<Browsers> {
  const child: ChildProcess = fork(CHILD_ENTRY, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let nextId = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  child.on('message', (m: { id: number; result?: unknown; error?: string }) => {
    const waiter = pending.get(m.id);
    pending.delete(m.id);
    if (m.error !== undefined) waiter?.reject(new Error(`browsers process: ${m.error}`));
    else waiter?.resolve(m.result);
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      for (const w of pending.values()) w.reject(new Error(`browsers process exited (${code})`));
      pending.clear();
      resolve();
    }),
  );
  const call = <T>(op: string, extra: Record<string, unknown> = {}): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, op, ...extra });
    });
  return {
    prepare: (origin, count) => call('prepare', { origin, count }),
    connect: () => call('connect'),
    send: (prefix, question) => call('send', { prefix, question }),
    wait: (timeoutMs) => call('wait', { timeoutMs }),
    observations: () => call('observations'),
    disconnect: () => call('disconnect'),
    async close() {
      if (child.exitCode === null) await call('close').catch(() => undefined);
      await exited;
    },
  };
}
