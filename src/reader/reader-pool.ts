/**
 * Worker threads that read pages (extract-worker.ts). Building a DOM cannot be sliced into small
 * steps, so it happens where a stall cannot reach other conversations: each job runs in a worker with
 * a time limit and a heap cap, and a worker that overruns either is terminated and replaced. Workers
 * start with the first page and stop after a while idle, so an idle Scout holds none.
 *
 * The time limit measures the reader's own work: the CPU time of the worker's thread since it took
 * the job (Linux's per-thread schedstat, read from this thread), not the time the job waited in the
 * queue or the worker waited for a core on a busy machine. A generous wall-clock bound stays behind
 * it, and where the thread's CPU time cannot be read (not Linux) the limit is wall-clock as before.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ReadJob, ReadJobResult } from './read-job.js';

/** CPU time one page may take in a worker (building the DOM, Readability, passages). */
export const READ_TIME_LIMIT_MS = 2_000;
/**
 * Wall-clock bound on a job once a worker has it, as a multiple of its CPU limit: a worker starved of
 * cores for this long is given up on (the job fails as too complex), whatever its CPU time says.
 */
const WALL_LIMIT_FACTOR = 10;
/** How often a running job's CPU time is looked at, at most (a file read from /proc, ~20 µs). */
const CPU_CHECK_MS = 100;
/** Heap of a reader worker: the DOM of a real 1.5 MB page needs a few tens of MB. */
const WORKER_HEAP_MB = 192;
/** Starting a worker (loading the DOM and Readability; tsx compiling them under tests). */
const BOOT_LIMIT_MS = 30_000;
/** A worker idle this long is stopped (its memory returned); the next page starts one again. */
const IDLE_MS = 15_000;

export class ReadTimeoutError extends Error {
  constructor(limitMs: number) {
    super(`the page is too complex to read (it took more than ${limitMs} ms of processing)`);
  }
}

/** Milliseconds of CPU a thread of this process has used, or undefined where that cannot be read. */
export type ThreadCpuClock = (threadId: number) => number | undefined;

/** Linux: the thread's time on a CPU, in nanoseconds, is the first field of its schedstat. */
export const linuxThreadCpuMs: ThreadCpuClock = (threadId) => {
  try {
    const ns = Number(readFileSync(`/proc/self/task/${threadId}/schedstat`, 'latin1').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
};

export class ReadFailedError extends Error {}

interface PendingJob {
  id: number;
  job: ReadJob;
  limitMs: number;
  /** Called when a worker takes the job (its wait in the queue is over). */
  onStart?: () => void;
  resolve: (result: ReadJobResult) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  /** The worker has loaded its modules: a job's time limit counts from here, not from the start. */
  ready: boolean;
  /** The worker's thread as the kernel numbers it (its CPU time is read by it), when it said. */
  threadId?: number;
  job?: PendingJob;
  /** The thread's CPU time and the wall clock when it took the job. */
  cpuAtStart?: number;
  wallAtStart?: number;
  timer?: NodeJS.Timeout;
  idleTimer?: NodeJS.Timeout;
}

export class ReaderPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: PendingJob[] = [];
  private nextId = 1;
  private closed = false;

  private readonly cpuClock: ThreadCpuClock;
  private readonly wallLimitFactor: number;

  constructor(
    private readonly size = Math.max(1, Math.min(2, availableParallelism())),
    options: {
      /** The worker threads' CPU clock (tests give one of their own). */
      cpuClock?: ThreadCpuClock;
      /** The wall-clock bound on a job, as a multiple of its CPU limit. */
      wallLimitFactor?: number;
    } = {},
  ) {
    this.cpuClock = options.cpuClock ?? linuxThreadCpuMs;
    this.wallLimitFactor = options.wallLimitFactor ?? WALL_LIMIT_FACTOR;
  }

  /**
   * Runs `job` in a worker; rejects with ReadTimeoutError past `limitMs`, or the signal's reason.
   * `onStart` is called when a worker takes the job: until then it waits in the queue.
   */
  run(
    job: ReadJob,
    options: { limitMs?: number; signal?: AbortSignal; onStart?: () => void } = {},
  ): Promise<ReadJobResult> {
    if (this.closed) return Promise.reject(new ReadFailedError('the page reader is shut down'));
    options.signal?.throwIfAborted();
    const signal = options.signal;
    return new Promise<ReadJobResult>((resolve, reject) => {
      const onAbort = () => {
        const queued = this.queue.indexOf(pending);
        if (queued >= 0) {
          this.queue.splice(queued, 1);
          reject(signal?.reason);
          return;
        }
        for (const slot of this.slots) if (slot.job === pending) this.fail(slot, signal?.reason);
      };
      // A turn's signal lives longer than one page: the listener goes when the page is done.
      const done = () => signal?.removeEventListener('abort', onAbort);
      const pending: PendingJob = {
        id: this.nextId++,
        job,
        limitMs: options.limitMs ?? READ_TIME_LIMIT_MS,
        ...(options.onStart ? { onStart: options.onStart } : {}),
        resolve: (result) => {
          done();
          resolve(result);
        },
        reject: (err) => {
          done();
          reject(err);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(pending);
      this.dispatch();
    });
  }

  /** Stops every worker; jobs in flight are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0))
      pending.reject(new ReadFailedError('the page reader is shut down'));
    await Promise.all(
      [...this.slots].map((slot) => {
        slot.job?.reject(new ReadFailedError('the page reader is shut down'));
        return this.retire(slot);
      }),
    );
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = [...this.slots].find((s) => s.ready && s.job === undefined);
      if (!slot) {
        const starting = [...this.slots].filter((s) => !s.ready).length;
        if (starting < this.queue.length && this.slots.size < this.size) this.spawn();
        return;
      }
      const pending = this.queue.shift() as PendingJob;
      if (slot.idleTimer) clearTimeout(slot.idleTimer);
      slot.job = pending;
      slot.wallAtStart = performance.now();
      slot.cpuAtStart = slot.threadId === undefined ? undefined : this.cpuClock(slot.threadId);
      this.watch(slot, pending, pending.limitMs);
      slot.worker.ref();
      const { job, transfer } = forWorker(pending.job);
      slot.worker.postMessage({ id: pending.id, job }, transfer);
      pending.onStart?.();
    }
  }

  /**
   * Looks at the job's CPU time when it could first have spent its limit, and again as it nears it:
   * past the limit (or the wall-clock bound) the job fails and its worker goes.
   */
  private watch(slot: Slot, pending: PendingJob, delayMs: number): void {
    slot.timer = setTimeout(() => {
      if (slot.job !== pending) return;
      const wall = performance.now() - (slot.wallAtStart ?? 0);
      const now = slot.threadId === undefined ? undefined : this.cpuClock(slot.threadId);
      const cpu = now === undefined || slot.cpuAtStart === undefined ? wall : now - slot.cpuAtStart;
      if (cpu >= pending.limitMs || wall >= pending.limitMs * this.wallLimitFactor) {
        this.fail(slot, new ReadTimeoutError(pending.limitMs));
        return;
      }
      this.watch(slot, pending, Math.max(1, Math.min(pending.limitMs - cpu, CPU_CHECK_MS)));
    }, delayMs);
  }

  private spawn(): Slot {
    const { source, workerData } = workerEntry();
    const worker = new Worker(source, {
      eval: true,
      workerData,
      // The young-generation limit applies only without --max-semi-space-size: V8 takes that
      // process-wide flag over an isolate's limit, so under npm start's flags (and the Docker image's)
      // a reader gets the semi-spaces that flag gives the main thread (docs/performance.md, 2026-11-28).
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 32 },
      stdout: true,
      stderr: true,
    });
    const slot: Slot = { worker, ready: false };
    const boot = setTimeout(
      () => this.abandon(slot, new ReadFailedError('the page reader did not start')),
      BOOT_LIMIT_MS,
    );
    worker.on(
      'message',
      (message: {
        id: number;
        ok: boolean;
        ready?: true;
        threadId?: number;
        result?: ReadJobResult;
        error?: string;
      }) => {
        if (message.ready) {
          clearTimeout(boot);
          slot.ready = true;
          if (message.threadId !== undefined) slot.threadId = message.threadId;
          this.dispatch();
          return;
        }
        const pending = slot.job;
        if (!pending || pending.id !== message.id) return;
        this.settle(slot);
        if (message.ok) pending.resolve(message.result as ReadJobResult);
        else pending.reject(new ReadFailedError(message.error ?? 'the page could not be read'));
        this.dispatch();
      },
    );
    worker.on('error', (err: Error & { code?: string }) =>
      (slot.ready ? this.fail.bind(this) : this.abandon.bind(this))(
        slot,
        new ReadFailedError(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? 'the page is too large to read'
            : `the page reader failed: ${err.message}`,
        ),
      ),
    );
    worker.on('exit', () => {
      clearTimeout(boot);
      if (!this.slots.has(slot)) return;
      if (slot.ready) this.fail(slot, new ReadFailedError('the page reader stopped'));
      else this.abandon(slot, new ReadFailedError('the page reader did not start'));
    });
    this.slots.add(slot);
    return slot;
  }

  /** The job in `slot` is done: the worker waits for the next one, or stops when idle too long. */
  private settle(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.job = undefined;
    slot.worker.unref();
    slot.idleTimer = setTimeout(() => void this.retire(slot), IDLE_MS);
    slot.idleTimer.unref();
  }

  /** The job in `slot` failed or overran: the worker may be stuck mid-parse, so it goes. */
  private fail(slot: Slot, reason: unknown): void {
    const pending = slot.job;
    slot.job = undefined;
    void this.retire(slot);
    pending?.reject(reason instanceof Error ? reason : new ReadFailedError(String(reason)));
    this.dispatch();
  }

  /** A worker that never started: the jobs waiting for it fail rather than wait forever. */
  private abandon(slot: Slot, reason: Error): void {
    void this.retire(slot);
    if (this.slots.size > 0) return;
    for (const pending of this.queue.splice(0)) pending.reject(reason);
  }

  private async retire(slot: Slot): Promise<void> {
    if (!this.slots.delete(slot)) return;
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    await slot.worker.terminate();
  }
}

/**
 * A job as it is posted to a worker: a document's bytes as a copy of their own, moved rather than
 * cloned — cloning a view clones its whole buffer (a Buffer cut from Node's pool or from a larger
 * download), and the caller keeps its own bytes (a moved buffer is emptied where it came from).
 */
function forWorker(job: ReadJob): { job: ReadJob; transfer: ArrayBuffer[] } {
  if (job.kind !== 'document') return { job, transfer: [] };
  const body = new Uint8Array(job.body);
  return { job: { ...job, body }, transfer: [body.buffer] };
}

/**
 * How to start the worker from wherever this module runs: compiled (dist/src/reader/extract-worker.js
 * beside it), bundled (dist/scout/reader-worker.js, an entry of its own; this code may sit in a chunk
 * one folder down), or TypeScript sources under tests (tsx's loader registered in the worker first).
 */
function workerEntry(): { source: string; workerData: { entry: string; tsx?: string } } {
  const here = import.meta.url;
  const boot = `
const { workerData } = require('node:worker_threads');
(workerData.tsx ? import(workerData.tsx).then((m) => m.register()) : Promise.resolve())
  .then(() => import(workerData.entry))
  .catch((err) => { console.error(err); process.exit(1); });
`;
  if (here.endsWith('.ts')) {
    const tsxRoot = join(createRequire(here).resolve('tsx/package.json'), '..');
    return {
      source: boot,
      workerData: {
        entry: new URL('./extract-worker.ts', here).href,
        tsx: pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href,
      },
    };
  }
  for (const candidate of ['./extract-worker.js', './reader-worker.js', '../reader-worker.js']) {
    const url = new URL(candidate, here);
    if (existsSync(fileURLToPath(url))) return { source: boot, workerData: { entry: url.href } };
  }
  throw new ReadFailedError('the page reader is not installed (reader-worker.js is missing from the build)');
}

let shared: ReaderPool | undefined;

/** The process's pool (lazily created: nothing starts until a page is read). */
export function readerPool(): ReaderPool {
  shared ??= new ReaderPool();
  return shared;
}
