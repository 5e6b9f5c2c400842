/**
 * Scenario 7: cold start. `--once "question"` (start, answer one message from the fake model, exit)
 * timed as a whole process against `node -e 0` on the same machine, each command several times,
 * interleaved, medians reported:
 *
 * - the bundle itself (`node dist/scout/main.js`);
 * - the Docker image's command, `node scripts/start.mjs`, run as the image runs it: from a folder laid
 *   out like the image (dist/, scripts/, prompts/, node_modules, package.json; no sources, so no
 *   staleness walk) with NODE_ENV=production — outside Docker, which this machine may not have;
 * - what `npm start` runs, `node scripts/start.mjs` in the checkout (the staleness check included);
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

function timed(file: string, args: string[], env: Record<string, string>, cwd = repoRoot): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, cwd, timeout: 60_000 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${stderr.slice(-500)}`));
      else resolve(performance.now() - started);
    });
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
  const node: number[] = [];
  const bundled: number[] = [];
  const image: number[] = [];
  const script: number[] = [];
  const npm: number[] = [];
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
      image.push(await timed(process.execPath, ['scripts/start.mjs', ...once], imageEnv, app));
      script.push(await timed(process.execPath, ['scripts/start.mjs', ...once], env));
      npm.push(await timed('npm', ['start', '--silent', '--', ...once], env));
    }
  } finally {
    await fakes.configure(normal);
    rmSync(app, { recursive: true, force: true });
  }
  const base = summarize(node).p50;
  const direct = summarize(bundled).p50;
  const inImage = summarize(image).p50;
  const viaScript = summarize(script).p50;
  const viaNpm = summarize(npm).p50;
  const ratio = (v: number) => `${(v / base).toFixed(1)}×`;
  const check = (target: string, v: number) => ({
    target,
    measured: ratio(v),
    met: v <= TARGET_RATIO * base,
  });
  return {
    id: 7,
    name: `Cold start: --once against node -e 0 (median of ${options.startRuns})`,
    rows: [
      ['node -e 0', ms(base, 0)],
      ['node dist/scout/main.js --once (the bundle)', `${ms(direct, 0)} (${ratio(direct)})`],
      ["Docker image's command: node scripts/start.mjs --once", `${ms(inImage, 0)} (${ratio(inImage)})`],
      ['node scripts/start.mjs --once in the checkout', `${ms(viaScript, 0)} (${ratio(viaScript)})`],
      ['npm start -- --once', `${ms(viaNpm, 0)} (${ratio(viaNpm)})`],
      ["npm's own start-up (npm start − the script it runs)", ms(viaNpm - viaScript, 0)],
    ],
    // Read on what users run: README's quick start (`npm start`) and the Docker image's command.
    targets: [
      check(`Docker image's command: --once cold start ≤ ${TARGET_RATIO}× node -e 0`, inImage),
      check(`npm start -- --once: cold start ≤ ${TARGET_RATIO}× node -e 0`, viaNpm),
    ],
    data: {
      nodeMs: summarize(node),
      bundleMs: summarize(bundled),
      imageCommandMs: summarize(image),
      startScriptMs: summarize(script),
      npmStartMs: summarize(npm),
    },
  };
}
