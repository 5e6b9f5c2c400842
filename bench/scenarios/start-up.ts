/**
 * Scenario 7: cold start. `--once "question"` (start, answer one message from the fake model, exit)
 * timed as a whole process against `node -e 0` on the same machine, each command several times,
 * interleaved, medians reported:
 *
 * - the bundle itself (`node dist/scout/main.js`);
 * - the Docker image's command, `node <start flags> scripts/start.mjs`, run as the image runs it: from a folder laid
 *   out like the image (dist/, scripts/, prompts/, node_modules, package.json; no sources, so no
 *   staleness walk) with NODE_ENV=production — outside Docker, which this machine may not have;
 * - what `npm start` runs, `node <start flags> scripts/start.mjs` in the checkout (the staleness check included);
 * - `npm start` itself (npm's own start-up included): what README's quick start runs.
 *
 * The terminal path: memory store, no platform SDK loaded. The fake model answers at once (five
 * tokens, no delay), so what is timed is Scout starting, not the model.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleEntry } from '../../scripts/build.mjs';
import { startFlags } from '../../test/helpers/start-command.js';
import { ensureBuilt } from '../bot-process.js';
import { type BenchContext, fakeSpeed, ms, type ScenarioResult } from '../context.js';
import { summarize } from '../metrics.js';

const repoRoot = join(import.meta.dirname, '../..');

/**
 * A folder laid out like the Docker image's /app: what the Dockerfile copies into the runtime stage
 * (scripts copied, so they find no sources beside them; the rest linked, which Node resolves to the
 * checkout's real files as it would read the image's copies).
 */
function imageLayout(): string {
  const app = mkdtempSync(join(tmpdir(), 'scout-image-'));
  mkdirSync(join(app, 'scripts'));
  for (const file of ['start.mjs', 'stale.mjs', 'build.mjs'])
    copyFileSync(join(repoRoot, 'scripts', file), join(app, 'scripts', file));
  for (const path of ['dist', 'prompts', 'node_modules', 'package.json'])
    symlinkSync(join(repoRoot, path), join(app, path));
  return app;
}

/** Cold start may take this many times `node -e 0` (issue 19). */
const TARGET_RATIO = 5;

interface Timing {
  wallMs: number;
  /** User + system CPU of the command and everything it waited for (npm's shell and node included). */
  cpuMs: number;
}

/**
 * Runs a command under `sh` and reads its CPU from the shell's `times` (children's user and system
 * time, which takes in every descendant waited for): on a shared machine wall time also holds the
 * time the command waited for a core, CPU time does not. The shell's own start is in the wall time
 * of every command alike, `node -e 0` included. (Not bash: started from Node, which raises the
 * open-file limit its children inherit, bash took seconds to start here.)
 */
function timed(file: string, args: string[], env: Record<string, string>, cwd = repoRoot): Promise<Timing> {
  const started = performance.now();
  const script = '"$@"; s=$?; times >&2; exit $s';
  return new Promise((resolve, reject) => {
    execFile(
      'sh',
      ['-c', script, 'sh', file, ...args],
      { env, cwd, timeout: 60_000 },
      (error, _stdout, stderr) => {
        const wallMs = performance.now() - started;
        const children = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(stderr);
        if (error || !children) {
          reject(new Error(`${file} ${args.join(' ')} failed: ${stderr.slice(-500)}`));
          return;
        }
        const [, um, us, sm, ss] = children.map(Number) as [number, number, number, number, number];
        resolve({ wallMs, cpuMs: (um * 60 + us + sm * 60 + ss) * 1000 });
      },
    );
  });
}

export async function startUp(ctx: BenchContext): Promise<ScenarioResult> {
  const { options, fakes } = ctx;
  await ensureBuilt();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    OPENAI_API_KEY: 'sk-bench-key',
    OPENAI_BASE_URL: fakes.llmBaseUrl,
    AGENT_FUNCTION_CALL_MODEL: 'openai/bench-model',
    DEFAULT_MODE: 'chat',
    STORE_URL: 'memory://',
  };
  const node: Timing[] = [];
  const bundled: Timing[] = [];
  const image: Timing[] = [];
  const script: Timing[] = [];
  const npm: Timing[] = [];
  const normal = fakeSpeed(options, options.tokensPerSecond);
  await fakes.configure({
    ...normal,
    speed: { ...normal.speed, firstTokenMs: 0, tokensPerSecond: 100_000, answerTokens: 5 },
  });
  const app = imageLayout();
  // The image's environment (Dockerfile ENV) on top of the same variables.
  const imageEnv = { ...env, NODE_ENV: 'production', PORT: '3000' };
  try {
    // Interleaved, so a burst of load on the shared machine hits all of them alike.
    for (let i = 0; i < options.startRuns; i++) {
      const once = ['--once', `bench-t7-${i} hi`];
      node.push(await timed(process.execPath, ['-e', '0'], env));
      bundled.push(await timed(process.execPath, [bundleEntry, ...once], env));
      image.push(await timed(process.execPath, [...startFlags, 'scripts/start.mjs', ...once], imageEnv, app));
      script.push(await timed(process.execPath, [...startFlags, 'scripts/start.mjs', ...once], env));
      npm.push(await timed('npm', ['start', '--silent', '--', ...once], env));
    }
  } finally {
    await fakes.configure(normal);
    rmSync(app, { recursive: true, force: true });
  }
  const median = (runs: Timing[], key: keyof Timing) => summarize(runs.map((t) => t[key])).p50;
  const base = { wallMs: median(node, 'wallMs'), cpuMs: median(node, 'cpuMs') };
  const ratio = (v: number, key: keyof Timing) => `${(v / base[key]).toFixed(1)}×`;
  const row = (label: string, runs: Timing[]): [string, string] => {
    const wall = median(runs, 'wallMs');
    const cpu = median(runs, 'cpuMs');
    return [label, `${ms(wall, 0)} (${ratio(wall, 'wallMs')}) · CPU ${ms(cpu, 0)} (${ratio(cpu, 'cpuMs')})`];
  };
  // Read on CPU time: on this shared machine a start's wall time is mostly waiting for a core (and
  // on a quiet one the two agree, a start waits for nothing else).
  const check = (target: string, runs: Timing[]) => {
    const cpu = median(runs, 'cpuMs');
    return { target, measured: ratio(cpu, 'cpuMs'), met: cpu <= TARGET_RATIO * base.cpuMs };
  };
  return {
    id: 7,
    name: `Cold start: --once against node -e 0 (median of ${options.startRuns}; wall, then CPU)`,
    rows: [
      ['node -e 0', `${ms(base.wallMs, 0)} · CPU ${ms(base.cpuMs, 0)}`],
      row('node dist/scout/main.js --once (the bundle)', bundled),
      row("Docker image's command: node <start flags> scripts/start.mjs --once", image),
      row('node <start flags> scripts/start.mjs --once in the checkout', script),
      row('npm start -- --once', npm),
      [
        "npm's own start-up (npm start − the script it runs)",
        `${ms(median(npm, 'wallMs') - median(script, 'wallMs'), 0)} · CPU ${ms(median(npm, 'cpuMs') - median(script, 'cpuMs'), 0)}`,
      ],
    ],
    // Read on what users run: README's quick start (`npm start`) and the Docker image's command.
    targets: [
      check(`Docker image's command: --once cold start ≤ ${TARGET_RATIO}× node -e 0 (CPU)`, image),
      check(`npm start -- --once: cold start ≤ ${TARGET_RATIO}× node -e 0 (CPU)`, npm),
    ],
    data: {
      runs: { node, bundle: bundled, imageCommand: image, startScript: script, npmStart: npm },
    },
  };
}
