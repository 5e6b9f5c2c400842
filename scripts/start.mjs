/**
 * `npm start`, `npm run check` and the Docker image's command: run Scout's bundle
 * (dist/scout/main.js), building it first only when it is missing or older than a source file. So
 * `npm ci && npm start` works on a fresh clone (the first start builds, once), and every later start
 * loads a few bundled files instead of hundreds of modules (see docs/performance.md). Only the
 * staleness check (stale.mjs: node:fs) is loaded before the bundle; the builder only when a build is
 * due. In the Docker image there are no sources, so nothing is ever rebuilt there.
 */
import module from 'node:module';
import { pathToFileURL } from 'node:url';
import { bundleEntry, isStale } from './stale.mjs';

// Node ≥ 22.1 keeps compiled code on disk between starts; Node 20 has no such cache and skips this.
module.enableCompileCache?.();
if (isStale()) {
  const { build } = await import('./build.mjs');
  if (!(await build(' (first start, or the sources changed)'))) process.exit(1);
}
// Same process, same arguments: main.js reads process.argv.slice(2) as if started directly.
await import(pathToFileURL(bundleEntry).href);
