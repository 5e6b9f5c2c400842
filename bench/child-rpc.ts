/**
 * A bench helper in a process of its own (the fakes, the browsers), called over Node's IPC channel:
 * each call is `{ id, op, …}` and its answer `{ id, result }` or `{ id, error }`. One implementation
 * for both sides, so every such child behaves alike (a dead child rejects what waits on it; an
 * orphaned child exits).
 */
import { type ChildProcess, fork } from 'node:child_process';

export interface ChildRpc {
  readonly child: ChildProcess;
  call<T>(op: string, extra?: Record<string, unknown>): Promise<T>;
  /** Resolves when the child has exited. */
  readonly exited: Promise<void>;
}

/** Starts `entry` (TypeScript, through tsx) and returns how to call it; `label` names it in errors. */
export function forkRpc(entry: string, label: string): ChildRpc {
  const child = fork(entry, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let nextId = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  child.on('message', (m: { id: number; result?: unknown; error?: string }) => {
    const waiter = pending.get(m.id);
    pending.delete(m.id);
    if (m.error !== undefined) waiter?.reject(new Error(`${label} process: ${m.error}`));
    else waiter?.resolve(m.result);
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      for (const w of pending.values()) w.reject(new Error(`${label} process exited (${code})`));
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
  return { child, call, exited };
}

/** The child's side: answers each request with `answer`, and exits when its parent is gone. */
export function serveRpc<R extends { id: number }>(answer: (request: R) => Promise<unknown>): void {
  process.on('message', (request: R) => {
    answer(request).then(
      (result) => process.send?.({ id: request.id, result }),
      (err: unknown) => process.send?.({ id: request.id, error: String(err) }),
    );
  });
  // The parent died without saying goodbye: do not linger.
  process.on('disconnect', () => process.exit(0));
}
