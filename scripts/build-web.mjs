/**
 * Bundles the web chat page (adapters/web/client/) into dist/web/: app.js and app.css (marked,
 * DOMPurify and highlight.js inside, so the page asks no other origin for anything), plus the two
 * HTML pages the server sends. Plain JavaScript, like build.mjs: it runs before anything is compiled.
 * `node scripts/build-web.mjs` builds it alone; build.mjs calls it after the server bundle.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from './stale.mjs';

const CLIENT = 'adapters/web/client';
const PAGES = ['index.html', 'login.html'];

/** Builds the page into `outdir` (relative to the repository, or absolute). Throws with esbuild's message. */
export async function buildWeb({ outdir = 'dist/web', minify = true } = {}) {
  const esbuild = await import('esbuild');
  const out = isAbsolute(outdir) ? outdir : join(repoRoot, outdir);
  mkdirSync(out, { recursive: true });
  await esbuild.build({
    absWorkingDir: repoRoot,
    // Two entries named app: esbuild writes app.js and app.css side by side.
    entryPoints: [
      { in: `${CLIENT}/app.ts`, out: 'app' },
      { in: `${CLIENT}/app.css`, out: 'app' },
    ],
    outdir: out,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    // Browsers of the last few years: <dialog>, EventSource, requestSubmit, :focus-visible.
    target: ['chrome105', 'firefox110', 'safari16', 'edge105'],
    minify,
    sourcemap: false,
    // The libraries' licence comments, gathered at the end of each file rather than dropped.
    legalComments: 'eof',
    logLevel: 'silent',
  });
  for (const page of PAGES) copyFileSync(join(repoRoot, CLIENT, page), join(out, page));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await buildWeb();
  } catch (err) {
    process.stderr.write(`The web page did not build: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
