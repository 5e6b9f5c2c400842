/**
 * The reader's worker thread: runs read jobs (read-job.ts) off the main thread, so a slow or hostile
 * page costs this thread's time, never other conversations'. The pool (reader-pool.ts) bounds its
 * time and heap and replaces it when either is spent.
 */
import { readlinkSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { type ReadJob, runReadJob } from './read-job.js';

interface JobMessage {
  id: number;
  job: ReadJob;
}

parentPort?.on('message', async ({ id, job }: JobMessage) => {
  try {
    parentPort?.postMessage({ id, ok: true, result: await runReadJob(job) });
  } catch (err) {
    parentPort?.postMessage({ id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
});

/** This thread's id as the kernel knows it (`/proc/thread-self` → `<pid>/task/<tid>`), on Linux. */
function kernelThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) ? tid : undefined;
  } catch {
    return undefined;
  }
}

// Modules loaded: the pool may send the first job (its time limit starts now, and counts the CPU
// time of the thread named here).
const threadId = kernelThreadId();
parentPort?.postMessage({ ready: true, ...(threadId !== undefined ? { threadId } : {}) });
