/**
 * `npm run build`: compiles Scout to dist/ with tsc and stamps the time of a successful build, so
 * `npm start` (start.mjs) can tell whether dist/ is older than the sources. Plain JavaScript on
 * purpose: it runs before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const entry = join(repoRoot, 'dist/src/main.js');
/** Written after a successful build; its age is the build's age. */
const STAMP = 'dist/.built';
const ENTRY = 'dist/src/main.js';
const SOURCE_DIRS = ['src', 'adapters'];
const BUILD_INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

function newestMtime(dir) {
  let newest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name);
    if (item.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (item.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** True when dist/ is missing, never stamped, or older than a source file or build setting. */
export function isStale(root = repoRoot) {
  const stamp = join(root, STAMP);
  if (!existsSync(join(root, ENTRY)) || !existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  const inputs = [
    ...SOURCE_DIRS.map((dir) => newestMtime(join(root, dir))),
    ...BUILD_INPUTS.map((file) => statSync(join(root, file)).mtimeMs),
  ];
  return inputs.some((mtime) => mtime > built);
}

/** Compiles to dist/; false (with the reason on stderr) when it could not. */
export function build(reason = '') {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    process.stderr.write(
      'Scout is not compiled yet (dist/ is missing or older than src/) and TypeScript is not installed.\n' +
        'Run `npm ci` (it installs the compiler with the other dev dependencies), then `npm start`.\n',
    );
    return false;
  }
  process.stderr.write(`Compiling Scout to dist/${reason}…\n`);
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    process.stderr.write('Scout did not compile: see the errors above.\n');
    return false;
  }
  writeFileSync(join(repoRoot, STAMP), `${new Date().toISOString()}\n`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && !build()) process.exit(1);
