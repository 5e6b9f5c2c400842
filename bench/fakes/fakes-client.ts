/**
 * Starts the fakes either in a child process (the default for `npm run bench`: their CPU and event
 * loop stay out of Scout's process, as real Slack and a real model would) or in this process (the
 * smoke test, where start-up time matters more than isolation). Both give the same async API.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FakesConfig, FakesInfo, FakesSnapshot } from './fakes.js';
import { startFakes } from './fakes.js';

export interface FakesHandle extends FakesInfo {
  configure(config: FakesConfig): Promise<void>;
  snapshot(): Promise<FakesSnapshot>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

const CHILD_ENTRY = fileURLToPath(new URL('./fakes-process.ts', import.meta.url));

export async function startFakesHandle(config: FakesConfig, inProcess = false): Promise<FakesHandle> {
  if (inProcess) {
    const fakes = await startFakes(config);
    return {
      llmBaseUrl: fakes.llmBaseUrl,
      searchUrl: fakes.searchUrl,
      slackUrl: fakes.slackUrl,
      configure: async (c) => fakes.configure(c),
      // A copy, so later recording does not change what the caller measured.
      snapshot: async () => structuredClone(fakes.snapshot()),
      reset: async () => fakes.reset(),
      close: () => fakes.close(),
    };
  }
  const child: ChildProcess = fork(CHILD_ENTRY, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let nextId = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  child.on('message', (m: { id: number; result?: unknown; error?: string }) => {
    const waiter = pending.get(m.id);
    pending.delete(m.id);
    if (m.error !== undefined) waiter?.reject(new Error(`fakes process: ${m.error}`));
    else waiter?.resolve(m.result);
  });
  child.on('exit', (code) => {
    for (const w of pending.values()) w.reject(new Error(`fakes process exited (${code})`));
    pending.clear();
  });
  const call = <T>(op: string, extra: Record<string, unknown> = {}): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      child.send({ id, op, ...extra });
    });
  const info = await call<FakesInfo>('start', { config });
  return {
    ...info,
    configure: (c) => call('configure', { config: c }),
    snapshot: () => call('snapshot'),
    reset: () => call('reset'),
    async close() {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await call('close').catch(() => undefined);
      await exited;
    },
  };
}
