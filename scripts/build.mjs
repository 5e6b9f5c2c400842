/**
 * `npm run build`: compiles Scout to dist/ with tsc (dist/src/main.js: Discord shards, type errors
 * stop the build), then bundles the same sources with esbuild into dist/scout/ (what `npm start` and
 * the Docker image run), and
 * stamps the time of a successful build, so `npm start` (start.mjs) can tell whether dist/ is older
 * than the sources. Plain JavaScript on purpose: it runs before anything is compiled.
 *
 * Why a bundle: at start Node resolves, reads and compiles every module file separately, and
 * Scout's start path is a few hundred of them (its own modules, zod, undici, …): that, not Scout's
 * work, was most of a cold start (docs/performance.md). Dynamic `import()`s become separate chunks,
 * so what loads lazily still loads lazily.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWeb } from './build-web.mjs';
import { repoRoot, STAMP } from './stale.mjs';

export { bundleEntry, entry, isStale } from './stale.mjs';

/**
 * Packages bundled into dist/scout/: plain JavaScript on the path every start takes (configuration,
 * the core, the OpenAI-compatible client, the tools). Everything else — platform SDKs, native addons
 * (sharp, sqlite3), pino (its transports run files in worker threads), packages loaded only when
 * configured — stays an ordinary import from node_modules, as Node would load it without a bundle.
 */
const BUNDLED_PACKAGES = new Set([
  'zod',
  'openai',
  'eventsource-parser',
  'lru-cache',
  'keyv',
  'ipaddr.js',
  'htmlparser2',
]);

const packageName = (specifier) => specifier.split('/', specifier.startsWith('@') ? 2 : 1).join('/');

/**
 * zod's index re-exports every message locale (`z.locales`, 60-odd files, half of zod's bytes in
 * the bundle, compiled on every start). Scout never uses `z.locales` (its messages are its own), so
 * the bundle gets a locales module with English only, the one zod configures itself with.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: 'zod-locales', namespace: 'zod-english-only' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: repoRoot,
      loader: 'js',
    }));
  },
};

/** Bare imports from Scout's sources stay external unless their package is in BUNDLED_PACKAGES. */
const externalPackages = {
  name: 'scout-externals',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      // Inside a bundled package, its own dependencies come along (their versions may be nested).
      if (args.importer.includes('/node_modules/')) return undefined;
      return BUNDLED_PACKAGES.has(packageName(args.path)) ? undefined : { path: args.path, external: true };
    });
  },
};

/**
 * Bundles src/main.ts into `outdir` (default dist/scout/). Throws with esbuild's message on failure.
 * Chunks sit one folder down, so every output file finds prompts/ two or three levels up, as
 * prompt-library.ts looks for it.
 */
export async function bundle(outdir = join(repoRoot, 'dist/scout')) {
  const esbuild = await import('esbuild');
  await esbuild.build({
    absWorkingDir: repoRoot,
    // The page reader's worker thread is a file of its own (reader-pool.ts starts it by path).
    entryPoints: { main: 'src/main.ts', 'reader-worker': 'src/reader/extract-worker.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    logLevel: 'silent',
    plugins: [zodEnglishOnly, externalPackages],
    // CommonJS packages in the bundle (undici) call require() for Node's own modules.
    banner: {
      js: "import { createRequire as __scoutCreateRequire } from 'node:module'; const require = __scoutCreateRequire(import.meta.url);",
    },
  });
}

/** Compiles to dist/; false (with the reason on stderr) when it could not. */
export async function build(reason = '') {
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
  try {
    rmSync(join(repoRoot, 'dist/scout'), { recursive: true, force: true });
    await bundle();
    // The web chat page (dist/web/), served by adapters/web when WEB_PORT is set.
    await buildWeb();
  } catch (err) {
    process.stderr.write(`Scout did not bundle: ${err instanceof Error ? err.message : String(err)}\n`);
    return false;
  }
  writeFileSync(join(repoRoot, STAMP), `${new Date().toISOString()}\n`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && !(await build()))
  process.exit(1);
