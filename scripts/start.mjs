/**
 * `npm start` and `npm run check`: run the compiled Scout (dist/), compiling it first when dist/ is
 * missing or older than a source file. So `npm ci && npm start` still works on a fresh clone (the
 * first start compiles, once), and every later start skips transpiling TypeScript at run time,
 * which made start-up several times slower (see docs/performance.md).
 */
import { pathToFileURL } from 'node:url';
import { build, entry, isStale } from './build.mjs';

if (isStale() && !build(' (first start, or the sources changed)')) process.exit(1);
// Same process, same arguments: main.js reads process.argv.slice(2) as if started directly.
await import(pathToFileURL(entry).href);
