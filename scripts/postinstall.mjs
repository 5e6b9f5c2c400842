#!/usr/bin/env node
/**
 * Runs after every `npm ci` / `npm install`: applies patches/ to node_modules with patch-package.
 * One patch today, to linkedom (the DOM the reader parses pages into): its nodes no longer make a
 * listener map each, its class lists are made on first use, and a tag's upper-case name is made once
 * — the same DOM, about 30 % less time per page (docs/performance.md, "linkedom as Scout runs it").
 *
 * An install without dev dependencies (`npm ci --omit=dev`) has no patch-package: linkedom stays as
 * published — the reader gives the same text, more slowly — and the install goes on. The Docker image
 * installs everything, patches, builds, then prunes, so it always runs the patched linkedom.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let patchPackage;
try {
  patchPackage = require.resolve('patch-package/index.js');
} catch {
  console.warn(
    'scout: patch-package is not installed (an install without dev dependencies): linkedom stays as published, so pages are read the same, more slowly.',
  );
  process.exit(0);
}
const run = spawnSync(process.execPath, [patchPackage, '--error-on-fail'], { stdio: 'inherit' });
process.exit(run.status ?? 1);
