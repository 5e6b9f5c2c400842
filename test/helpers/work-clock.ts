/**
 * How long a piece of work took this process, in a way a busy machine does not stretch: the smaller
 * of wall time and the CPU time the process (its worker threads with it) used meanwhile. Work that
 * grows too much still fails a bound on it; a machine running four other loops does not.
 */
import { performance } from 'node:perf_hooks';

/** Starts the clock; the returned function reads the work time so far, in ms. */
export function startWorkClock(): () => number {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return Math.min(performance.now() - wall, (used.user + used.system) / 1000);
  };
}
