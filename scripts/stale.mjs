/**
 * Is the build older than the sources? What `npm start` (start.mjs) asks before every start, kept
 * apart from build.mjs so a start that needs no build loads only `node:fs` and `node:path` (loading
 * the builder — child_process, the module loader's require — cost a start more than the check).
 * Plain JavaScript: it runs before anything is compiled.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
/** tsc's output: one file per source (Discord shards, tests of the compiled form). */
export const entry = join(repoRoot, 'dist/src/main.js');
/** The bundle `npm start` and the Docker image run. */
export const bundleEntry = join(repoRoot, 'dist/scout/main.js');
/** Written after a successful build; its age is the build's age. */
export const STAMP = 'dist/.built';
const OUTPUTS = ['dist/src/main.js', 'dist/scout/main.js'];
const SOURCE_DIRS = ['src', 'adapters'];
const BUILD_INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** Sources: TypeScript, and the web page's stylesheet and HTML (adapters/web/client/). */
const SOURCE_FILE = /\.(ts|css|html)$/;

function newestMtime(dir) {
  let newest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name);
    if (item.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (SOURCE_FILE.test(item.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * True when the tsc output or the bundle is missing, the build was never stamped, or a source file
 * or build setting is newer than the stamp. Where there are no sources (the Docker image ships
 * dist/ alone) there is nothing to rebuild from: stale only if an output is missing.
 */
export function isStale(root = repoRoot) {
  const stamp = join(root, STAMP);
  if (OUTPUTS.some((file) => !existsSync(join(root, file))) || !existsSync(stamp)) return true;
  if (!existsSync(join(root, SOURCE_DIRS[0]))) return false;
  const built = statSync(stamp).mtimeMs;
  const inputs = [
    ...SOURCE_DIRS.map((dir) => newestMtime(join(root, dir))),
    ...BUILD_INPUTS.map((file) => statSync(join(root, file)).mtimeMs),
  ];
  return inputs.some((mtime) => mtime > built);
}
