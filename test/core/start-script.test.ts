/**
 * `npm start` (and the Docker image) runs the bundle and builds first only when dist/ is missing or
 * older than the sources (scripts/stale.mjs). Checked on a throwaway tree laid out like the
 * repository, and like the Docker image (dist/ without sources).
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStale } from '../../scripts/build.mjs';
import { startCommand, startFlags } from '../helpers/start-command.js';

let root: string;
const write = (path: string, secondsAgo: number, text = '') => {
  const file = join(root, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  const at = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(file, at, at);
};

/** A finished build: tsc's output, the bundle, the stamp, all 10 s old. */
const built = () => {
  for (const file of ['dist/src/main.js', 'dist/scout/main.js', 'dist/.built']) write(file, 10);
};

describe('start script: is the build stale?', () => {
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'scout-start-'));
    for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'src/main.ts'])
      write(file, 100);
    write('adapters/slack/sink.ts', 100);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('compiles on a fresh clone (no dist/)', () => {
    expect(isStale(root)).toBe(true);
  });

  it('compiles when dist/ exists but no build finished (no stamp)', () => {
    write('dist/src/main.js', 10);
    expect(isStale(root)).toBe(true);
  });

  it('starts at once when the stamped build is newer than every source', () => {
    built();
    expect(isStale(root)).toBe(false);
  });

  it('builds when the bundle npm start runs is missing, even with tsc output stamped', () => {
    write('dist/src/main.js', 10);
    write('dist/.built', 10);
    expect(isStale(root)).toBe(true);
  });

  it('never rebuilds where there are no sources (the Docker image), unless an output is missing', () => {
    built();
    for (const dir of ['src', 'adapters', 'tsconfig.json', 'tsconfig.build.json'])
      rmSync(join(root, dir), { recursive: true });
    expect(isStale(root)).toBe(false);
    rmSync(join(root, 'dist/scout'), { recursive: true });
    expect(isStale(root)).toBe(true);
  });

  it('recompiles after a source file, deep in adapters/, changed', () => {
    built();
    write('adapters/slack/sink.ts', 1);
    expect(isStale(root)).toBe(true);
  });

  it('recompiles after a build setting changed', () => {
    built();
    write('tsconfig.build.json', 1);
    expect(isStale(root)).toBe(true);
  });
});

const repoRoot = join(import.meta.dirname, '../..');
/** A bundle that prints what it was started with, so the test sees which one ran and its arguments. */
const fakeBundle = (name: string) =>
  `console.log(JSON.stringify({ bundle: ${JSON.stringify(name)}, args: process.argv.slice(2) }));\n`;
/**
 * A stand-in for the builder (scripts/build.mjs): it records that it ran, and "builds" by writing
 * the outputs and the stamp — or fails, as a build with type errors does.
 */
const fakeBuilder = `import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
const root = join(import.meta.dirname, '..');
export async function build() {
  writeFileSync(join(root, 'build-ran'), '');
  if (process.env.FAIL_BUILD) return false;
  mkdirSync(join(root, 'dist/scout'), { recursive: true });
  mkdirSync(join(root, 'dist/src'), { recursive: true });
  writeFileSync(join(root, 'dist/src/main.js'), '');
  writeFileSync(join(root, 'dist/scout/main.js'), ${JSON.stringify(fakeBundle('fresh'))});
  writeFileSync(join(root, 'dist/.built'), '');
  return true;
}
`;

// Every run below passes the start script's flags (startFlags), so a runtime that no longer knows
// one (V8 flags come and go) fails here, on each Node the suite runs on, not at a user's `npm start`.
function start(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [...startFlags, 'scripts/start.mjs', ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 20_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('start script: what it runs (npm start and the Docker image)', { timeout: 30_000 }, () => {
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'scout-start-run-'));
    for (const file of ['start.mjs', 'stale.mjs']) {
      mkdirSync(join(root, 'scripts'), { recursive: true });
      copyFileSync(join(repoRoot, 'scripts', file), join(root, 'scripts', file));
    }
    write('scripts/build.mjs', 100, fakeBuilder);
    write('package.json', 100, '{ "type": "module" }');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('runs the bundle with the arguments it was given, building nothing, in the image (no sources)', async () => {
    write('dist/src/main.js', 10, 'console.log("tsc output ran");');
    write('dist/scout/main.js', 10, fakeBundle('shipped'));
    write('dist/.built', 10);
    const result = await start(['--once', 'hi there']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ bundle: 'shipped', args: ['--once', 'hi there'] });
    expect(existsSync(join(root, 'build-ran'))).toBe(false);
  });

  it('on a fresh clone builds first, then runs the new bundle', async () => {
    write('src/main.ts', 100);
    for (const file of ['tsconfig.json', 'tsconfig.build.json']) write(file, 100);
    const result = await start(['--check']);
    expect(result.stderr).toBe('');
    expect(existsSync(join(root, 'build-ran'))).toBe(true);
    expect(JSON.parse(result.stdout)).toEqual({ bundle: 'fresh', args: ['--check'] });
  });

  it('exits 1 and runs no old bundle when the build fails', async () => {
    write('src/main.ts', 1);
    for (const file of ['tsconfig.json', 'tsconfig.build.json']) write(file, 100);
    write('dist/src/main.js', 10);
    write('dist/scout/main.js', 10, fakeBundle('old'));
    write('dist/.built', 10);
    const result = await start(['--once', 'hi'], { FAIL_BUILD: '1' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
  });
});

describe('the Docker image starts what npm start runs', () => {
  const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it("its CMD is package.json's start script, and the runtime stage has every file that script loads", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(runtime)?.[1];
    expect(cmd && (JSON.parse(cmd) as string[]).join(' ')).toBe(startCommand);
    const script = startCommand.split(' ').find((arg) => arg.endsWith('.mjs'))!;
    const loaded = [
      script,
      ...[
        ...readFileSync(join(repoRoot, script), 'utf8').matchAll(
          /from '\.\/([\w.]+)'|import\('\.\/([\w.]+)'\)/g,
        ),
      ].map((m) => `scripts/${m[1] ?? m[2]}`),
    ];
    expect(loaded).toEqual(['scripts/start.mjs', 'scripts/stale.mjs', 'scripts/build.mjs']);
    for (const file of loaded) expect(runtime).toContain(`/app/${file}`);
    expect(runtime).toMatch(/COPY --from=build \S+ \/app\/dist \.\/dist/);
  });

  it("copies what npm ci's postinstall reads (the script, patches/) before it runs npm ci", () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.postinstall).toBe('node scripts/postinstall.mjs');
    const beforeInstall = dockerfile.slice(0, dockerfile.indexOf('RUN npm ci'));
    expect(beforeInstall).toMatch(/^COPY scripts\/postinstall\.mjs /m);
    expect(beforeInstall).toMatch(/^COPY patches /m);
  });
});

describe('the postinstall', () => {
  it('lets an install without dev dependencies go on, saying linkedom stays as published', async () => {
    // The script alone in a tree with no node_modules: patch-package cannot be found from it.
    const tree = mkdtempSync(join(tmpdir(), 'scout-postinstall-'));
    try {
      mkdirSync(join(tree, 'scripts'));
      copyFileSync(join(repoRoot, 'scripts/postinstall.mjs'), join(tree, 'scripts/postinstall.mjs'));
      const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          ['scripts/postinstall.mjs'],
          { cwd: tree },
          (_e, _o, stderr) => resolve({ code: child.exitCode, stderr }),
        );
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('linkedom stays as published');
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
});
