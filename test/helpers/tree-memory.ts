/**
 * Resident memory of this process plus its child processes (Linux /proc), sampled while something
 * runs: the PDF bomb test and bench measure what reading costs the whole of Scout, readers included.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Whether /proc can tell (Linux): elsewhere the measurement is skipped. */
export const canMeasureTree = (() => {
  try {
    readFileSync('/proc/self/status');
    return true;
  } catch {
    return false;
  }
})();

function rssKb(pid: number | 'self'): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0; // the child exited between listing and reading
  }
}

/** Pids of this process's children (every thread can be a parent). */
function childPids(): number[] {
  const pids: number[] = [];
  for (const task of readdirSync('/proc/self/task')) {
    try {
      const list = readFileSync(`/proc/self/task/${task}/children`, 'latin1').trim();
      if (list) pids.push(...list.split(/\s+/).map(Number));
    } catch {
      // a thread that ended meanwhile
    }
  }
  return pids;
}

/** This process's RSS plus its children's, in bytes. */
export function treeRss(): number {
  let kb = rssKb('self');
  for (const pid of childPids()) kb += rssKb(pid);
  return kb * 1024;
}

/**
 * Runs `work` while sampling treeRss() every `everyMs`; returns its result and the highest sample,
 * in bytes. The sampler runs on this thread's timers: the work being measured happens elsewhere
 * (child processes) or yields, as PDF reading does.
 */
export async function peakTreeRss<T>(
  work: () => Promise<T>,
  everyMs = 5,
): Promise<{ result: T; peak: number }> {
  let peak = treeRss();
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRss());
  }, everyMs);
  try {
    const result = await work();
    peak = Math.max(peak, treeRss());
    return { result, peak };
  } finally {
    clearInterval(timer);
  }
}
