/**
 * `npm start` and `npm run check`: run the compiled Scout, compiling it first when dist/ is missing
 * or older than a source file. So `npm ci && npm start` still works on a fresh clone (the first
 * start compiles, once), and every later start skips transpiling TypeScript at run time. It runs
 * the bundle (dist/scout/main.js) — a few files instead of hundreds to resolve, read and compile —
 * or tsc's per-file output where no bundle was made (see docs/performance.md).
 */
import { existsSync } from 'node:fs';
import module from 'node:module';
import { pathToFileURL } from 'node:url';
import { build, bundleEntry, entry, isStale } from './build.mjs';

// Node ≥ 22.1 keeps compiled code on disk between starts; Node 20 has no such cache and skips this.
module.enableCompileCache?.();
if (isStale() && !(await build(' (first start, or the sources changed)'))) process.exit(1);
// Same process, same arguments: main.js reads process.argv.slice(2) as if started directly.
await import(pathToFileURL(existsSync(bundleEntry) ? bundleEntry : entry).href);
