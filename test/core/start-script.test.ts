/**
 * `npm start` runs the compiled build and compiles first only when dist/ is missing or older than
 * the sources (scripts/build.mjs). Checked on a throwaway tree laid out like the repository.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStale } from '../../scripts/build.mjs';

let root: string;
const write = (path: string, secondsAgo: number) => {
  const file = join(root, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, '');
  const at = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(file, at, at);
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
    write('dist/src/main.js', 10);
    write('dist/.built', 10);
    expect(isStale(root)).toBe(false);
  });

  it('recompiles after a source file, deep in adapters/, changed', () => {
    write('dist/src/main.js', 10);
    write('dist/.built', 10);
    write('adapters/slack/sink.ts', 1);
    expect(isStale(root)).toBe(true);
  });

  it('recompiles after a build setting changed', () => {
    write('dist/src/main.js', 10);
    write('dist/.built', 10);
    write('tsconfig.build.json', 1);
    expect(isStale(root)).toBe(true);
  });
});
