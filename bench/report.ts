/**
 * Prints the results as a plain-text table and writes them as JSON (bench/results/latest.json,
 * gitignored) with the machine they were taken on.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ScenarioResult } from './context.js';
import type { BenchOptions } from './options.js';

export interface Machine {
  cpus: number;
  cpuModel: string;
  node: string;
  platform: string;
  memoryGiB: number;
  /** 1-minute load average at the end of the run: the machine may be shared. */
  loadAverage: number;
}

export function machine(): Machine {
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    loadAverage: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}

export function formatTable(results: ScenarioResult[], m: Machine): string {
  const lines: string[] = [];
  lines.push(
    `Scout benchmark — ${m.cpus} × ${m.cpuModel}, Node ${m.node}, ${m.platform}, load average ${m.loadAverage}`,
  );
  for (const r of results) {
    lines.push('', `[${r.id}] ${r.name}`);
    const width = Math.max(...r.rows.map(([label]) => label.length));
    for (const [label, value] of r.rows) lines.push(`  ${label.padEnd(width)}  ${value}`);
  }
  const targets = results.flatMap((r) => r.targets);
  if (targets.length) {
    lines.push('', 'Targets');
    for (const t of targets)
      lines.push(`  ${t.met ? 'MET   ' : 'MISSED'}  ${t.target} — measured ${t.measured}`);
  }
  return lines.join('\n');
}

export async function writeJson(
  file: string,
  results: ScenarioResult[],
  options: BenchOptions,
  m: Machine,
  durationMs: number,
): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const json = {
    takenAt: new Date().toISOString(),
    machine: m,
    durationMs: Math.round(durationMs),
    options,
    scenarios: results,
  };
  // Infinity (no edits) is not JSON: write it as null.
  await writeFile(
    file,
    `${JSON.stringify(json, (_k, v) => (v === Number.POSITIVE_INFINITY ? null : v), 2)}\n`,
  );
}
