#!/usr/bin/env node
/**
 * Prints the test files that can read the recorded fixtures beside the repository (`../shared`): those
 * whose relative imports reach test/helpers/shared-folders.ts, where that folder is located. `.ci/run`
 * runs them once with the folder hidden (SCOUT_SHARED_DIR pointing at an empty one) to prove that a plain
 * clone's `npm test` passes with its skips. One path per line, relative to the repository root.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const target = path.join(root, 'test/helpers/shared-folders.ts');

/** Every `.test.ts` under test/. */
function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The TypeScript files a file imports by relative path (static, dynamic and re-exports). */
function relativeImports(file) {
  const text = readFileSync(file, 'utf8');
  const found = [];
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const spec = path.resolve(path.dirname(file), match[1]);
    const candidate = spec.replace(/\.m?js$/, '.ts');
    for (const option of [candidate, `${spec}.ts`, path.join(spec, 'index.ts')]) {
      if (existsSync(option) && option.endsWith('.ts')) {
        found.push(option);
        break;
      }
    }
  }
  return found;
}

const reaches = new Map();
function reachesShared(file, visiting = new Set()) {
  if (file === target) return true;
  if (reaches.has(file)) return reaches.get(file);
  if (visiting.has(file)) return false;
  visiting.add(file);
  const result = relativeImports(file).some((dep) => reachesShared(dep, visiting));
  visiting.delete(file);
  reaches.set(file, result);
  return result;
}

const readers = testFiles(path.join(root, 'test'))
  .filter((file) => reachesShared(file))
  .map((file) => path.relative(root, file))
  .sort();
if (readers.length === 0) {
  console.error('no test reads ../shared: the import scan found nothing, which is surely wrong');
  process.exit(1);
}
console.log(readers.join('\n'));
