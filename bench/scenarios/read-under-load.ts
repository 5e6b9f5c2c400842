/**
 * Scenario 19: reading under load (issue 56's two load targets), with two busy processes (`node -e`
 * spinning on a `for(;;){}`, each in a session of its own, as other programs on the machine) on its
 * cores for the whole of each part.
 *
 * A. `--read` over 1,000 pages in one call, as a user runs it: `node <start flags> scripts/start.mjs
 *    --read <1,000 paths>` (the bundle, built first when stale; no key in its environment: --read needs
 *    none), its output read through a pipe. Counted from what the CLI prints: a `==> PATH <==` header
 *    on stdout per document read, a `Could not read PATH: reason` line on stderr per document it could
 *    not read. Target: 1,000 of 1,000.
 * B. 100 result pages in flight at once, read the agent's way: 50 search rounds started together, each
 *    `runToolCalls` with one web_search and AGENT_READ_RESULTS=2 (the real web_search and fetch_url
 *    tools, the process's reader pool), against a search API answering in 300 ms whose results point at
 *    pages on a loopback server that answers after 400 ms and streams the body over 200 ms (loopback
 *    allowed as scenario 15 allows it); both in a process of their own (result-sites-process.ts), so
 *    that they keep their pace however busy Scout's main thread is, as real sites do. Counted: pages
 *    whose text reached the round's observations, against those left to their snippets (and why:
 *    fetch_url's error for each). Target: ≥ 95 of 100.
 *
 * `BENCH_LOAD_PARTS=A` or `=B` runs one part alone (default: both).
 *
 * The pages: with SCOUT_WCXB_DIR set (a WCXB checkout: dev/html/NNNN.html.gz; never committed here),
 * the first 1,000 of its dev pages, gunzipped into a temporary folder (B serves every tenth of them);
 * otherwise the corpus of test/fixtures/pages repeated to 1,000 files.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { ToolOutput, ToolRegistry } from '../../src/tools/types.js';
import { benchAgentTools, benchSearchRound } from '../agent-tools.js';
import { startFlags } from '../../test/helpers/start-command.js';
import { loadManifest, pageBytes } from '../../test/reader/page-fixtures.js';
import { ensureBuilt } from '../bot-process.js';
import { forkRpc } from '../child-rpc.js';
import type { ResultSitesConfig, ResultSitesTimings } from '../fakes/result-sites-process.js';
import { type BenchContext, mib, type ScenarioResult, type TargetCheck } from '../context.js';
import { summarize } from '../metrics.js';

const repoRoot = join(import.meta.dirname, '../..');

/** Part A: documents given to one `--read`. */
const READ_DOCUMENTS = 1_000;
/** Part B: search rounds started at once, and result pages each reads (AGENT_READ_RESULTS). */
const ROUNDS = 50;
const READ_PER_SEARCH = 2;
const SEARCH_LATENCY_MS = 300;
/** A news site's time to first byte, about; the body then arrives over BODY_MS in BODY_CHUNKS parts. */
const PAGE_LATENCY_MS = 400;
const BODY_MS = 200;
const BODY_CHUNKS = 10;
/** Processes spinning on the cores while each part runs. */
const BUSY_PROCESSES = 2;
/** Part A is given up on after this long (the CLI is then killed). */
const CLI_LIMIT_MS = 30 * 60_000;

interface Page {
  name: string;
  body: Uint8Array;
  /** What a server sends for it (WCXB pages: text/html, the reader finding the charset in the page). */
  contentType: string;
  /** The file extension `--read` takes its type from. */
  ext: string;
}

/** The scenario's pages: WCXB's dev pages when SCOUT_WCXB_DIR is set, else the corpus repeated. */
function loadPages(count: number): { pages: Page[]; source: string } {
  const wcxb = process.env.SCOUT_WCXB_DIR;
  if (wcxb) {
    const dir = join(wcxb, 'dev/html');
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.html.gz'))
      .sort()
      .slice(0, count);
    if (files.length < count) throw new Error(`${dir} holds ${files.length} pages, fewer than ${count}`);
    return {
      pages: files.map((file) => ({
        name: file.replace(/\.gz$/, ''),
        body: new Uint8Array(gunzipSync(readFileSync(join(dir, file)))),
        contentType: 'text/html',
        ext: '.html',
      })),
      source: `WCXB dev, the first ${count} pages`,
    };
  }
  const corpus = loadManifest().map((entry) => ({
    name: entry.file,
    body: pageBytes(entry),
    contentType: entry.contentType,
    ext: extname(entry.file),
  }));
  return {
    pages: Array.from({ length: count }, (_, i) => corpus[i % corpus.length] as Page),
    source: `the ${corpus.length} corpus pages (test/fixtures/pages) repeated`,
  };
}

/**
 * Busy processes for the length of `fn`: a `for(;;){}` each, which also ends when its parent is gone
 * (so a benchmark killed hard leaves no spinning process behind); killed when `fn` settles.
 */
async function underLoad<T>(fn: () => Promise<T>): Promise<T> {
  const spin =
    'const parent = process.ppid; for (let i = 0; ; i++) if ((i & 0xffffff) === 0 && process.ppid !== parent) process.exit(0);';
  const busy: ChildProcess[] = Array.from({ length: BUSY_PROCESSES }, () =>
    spawn(process.execPath, ['-e', spin], { stdio: 'ignore', detached: true }),
  );
  const kill = () => {
    for (const child of busy) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  try {
    return await fn();
  } finally {
    const exits = busy
      .filter((child) => child.exitCode === null && child.signalCode === null)
      .map((child) => once(child, 'exit'));
    kill();
    await Promise.all(exits);
    process.off('exit', kill);
  }
}

const load = (): string => loadavg()[0]?.toFixed(2) ?? 'n/a';

/** Peak RSS and CPU of a running process, read from /proc until it exits (0 where /proc is missing). */
function watchProcess(pid: number): { stop(): { peakRss: number; cpuMs: number } } {
  let peakRss = 0;
  let cpuMs = 0;
  const ticks = 100;
  const look = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      peakRss = Math.max(peakRss, Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024);
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpuMs = ((Number(fields[11]) + Number(fields[12])) / ticks) * 1000;
    } catch {
      // Gone, or no /proc: the last reading stands.
    }
  };
  const timer = setInterval(look, 100);
  look();
  return {
    stop() {
      clearInterval(timer);
      return { peakRss, cpuMs };
    },
  };
}

interface CliRun {
  read: number;
  failed: number;
  /** Failure reasons, worded once each, with their counts. */
  reasons: Record<string, number>;
  exitCode: number | null;
  wallMs: number;
  cpuMs: number;
  peakRss: number;
  loadBefore: string;
  loadAfter: string;
}

/** Part A: one `--read` of every file, as a user runs it. */
async function readMany(paths: string[]): Promise<CliRun> {
  const loadBefore = load();
  return underLoad(async () => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [...startFlags, join(repoRoot, 'scripts/start.mjs'), '--read', ...paths],
      {
        cwd: repoRoot,
        // No model key, no platform token: --read needs none.
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir() },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const watch = child.pid === undefined ? undefined : watchProcess(child.pid);
    const wanted = new Set(paths);
    const headers = new Set<string>();
    let pending = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const header = /^==> (.*) <==$/.exec(line)?.[1];
        if (header !== undefined && wanted.has(header)) headers.add(header);
      }
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const limit = setTimeout(() => child.kill('SIGKILL'), CLI_LIMIT_MS);
    // 'close', not 'exit': the last of its output may still be on its way when the process has exited.
    const [exitCode] = (await once(child, 'close')) as [number | null];
    clearTimeout(limit);
    const wallMs = performance.now() - started;
    const usage = watch?.stop() ?? { peakRss: 0, cpuMs: 0 };
    const reasons: Record<string, number> = {};
    let failed = 0;
    for (const line of stderr.split('\n')) {
      const match = /^Could not (?:read|fetch) (.*?): (.*)$/.exec(line);
      if (!match || !wanted.has(match[1] ?? '')) {
        if (line.trim())
          reasons[`other: ${line.slice(0, 120)}`] = (reasons[`other: ${line.slice(0, 120)}`] ?? 0) + 1;
        continue;
      }
      failed++;
      // Limits and sizes differ per page: the reason's words, figures replaced.
      const reason = (match[2] ?? '').replace(/\d[\d,.]*/g, 'N');
      reasons[reason] = (reasons[reason] ?? 0) + 1;
    }
    return {
      read: headers.size,
      failed,
      reasons,
      exitCode,
      wallMs,
      ...usage,
      loadBefore,
      loadAfter: load(),
    };
  });
}

interface RoundsRun {
  read: number;
  snippets: number;
  reasons: Record<string, number>;
  /** Each page's fetch_url call, start to result (ms), read or not. */
  pageMs: number[];
  /** The pages left to their snippets: URL, the call's time, what fetch_url said. */
  failed: Array<{ url: string; ms: number; text: string }>;
  /** When each round was done (ms from the start). */
  roundMs: number[];
  /** The sites' side (ms from the start): each search asked, each page asked, each page's body sent whole. */
  sites: ResultSitesTimings;
  /** The longest Scout's main thread (the bench's, here) was late to its event loop. */
  stallMs: number;
  /** The main thread's busy time over the part (event-loop utilisation's active time). */
  busyMs: number;
  wallMs: number;
  loadBefore: string;
  loadAfter: string;
}

/**
 * Part B: `ROUNDS` search rounds at once, each reading its top results (AGENT_READ_RESULTS), against
 * the sites of result-sites-process.ts serving `files`.
 */
async function readResultsInFlight(files: string[], contentTypes: string[]): Promise<RoundsRun> {
  const sites = forkRpc(fileURLToPath(new URL('../fakes/result-sites-process.ts', import.meta.url)), 'sites');
  try {
    const config: ResultSitesConfig = {
      files,
      contentTypes,
      searchMs: SEARCH_LATENCY_MS,
      pageMs: PAGE_LATENCY_MS,
      bodyMs: BODY_MS,
      bodyChunks: BODY_CHUNKS,
      perSearch: READ_PER_SEARCH,
    };
    const { searchBase } = await sites.call<{ searchBase: string }>('start', { config });
    // The tools as the agent has them (loopback allowed, as in scenario 15); what each fetch_url call
    // returned to the round noted on the way: why a page was left to its snippet (the tool's own
    // error, or the registry's time limit).
    const registry = benchAgentTools(searchBase);
    const outputs: Array<{ url: string; output: ToolOutput; ms: number }> = [];
    const tools: ToolRegistry = {
      ...registry,
      async execute(name, args, context) {
        const began = performance.now();
        const output = await registry.execute(name, args, context);
        if (name === 'fetch_url')
          outputs.push({
            url: (JSON.parse(args) as { url: string }).url,
            output,
            ms: performance.now() - began,
          });
        return output;
      },
    };
    const round = (index: number) =>
      benchSearchRound(tools, {
        query: `harbour ferry passengers round ${index}`,
        sessionKey: `bench-load-${index}`,
        readCount: READ_PER_SEARCH,
      });
    const loadBefore = load();
    return await underLoad(async () => {
      await sites.call('mark');
      const started = performance.now();
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      const utilisation = performance.eventLoopUtilization();
      const roundMs: number[] = [];
      const rounds = await Promise.all(
        Array.from({ length: ROUNDS }, async (_, index) => {
          const results = await round(index);
          roundMs.push(performance.now() - started);
          return results;
        }),
      );
      const wallMs = performance.now() - started;
      delay.disable();
      const read = rounds.reduce((sum, results) => sum + (results[0]?.pages?.length ?? 0), 0);
      const reasons: Record<string, number> = {};
      for (const { output } of outputs) {
        if (!output.isError) continue;
        const reason = output.text.replace(/https?:\/\/\S+/g, 'URL').replace(/\d[\d,.]*/g, 'N');
        reasons[reason] = (reasons[reason] ?? 0) + 1;
      }
      return {
        read,
        snippets: ROUNDS * READ_PER_SEARCH - read,
        reasons,
        pageMs: outputs.map((o) => o.ms),
        failed: outputs
          .filter((o) => o.output.isError)
          .map((o) => ({ url: o.url, ms: Math.round(o.ms), text: o.output.text.slice(0, 200) })),
        roundMs,
        sites: await sites.call<ResultSitesTimings>('timings'),
        stallMs: delay.max / 1e6,
        busyMs: performance.eventLoopUtilization(utilisation).active,
        wallMs,
        loadBefore,
        loadAfter: load(),
      };
    });
  } finally {
    await sites.call('close').catch(() => undefined);
    await sites.exited;
  }
}

const reasonList = (reasons: Record<string, number>): string =>
  Object.entries(reasons)
    .map(([reason, n]) => `${n}× ${reason}`)
    .join('; ') || 'none';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export async function readUnderLoad(ctx: BenchContext): Promise<ScenarioResult> {
  const { pages, source } = loadPages(READ_DOCUMENTS);
  const rows: Array<[string, string]> = [['pages', source]];
  const targets: TargetCheck[] = [];
  const data: Record<string, unknown> = { source, busyProcesses: BUSY_PROCESSES };
  const parts = (process.env.BENCH_LOAD_PARTS ?? 'A,B').toUpperCase();
  const total = ROUNDS * READ_PER_SEARCH;

  // The pages as files in a temporary folder: what A reads, and what B's sites serve.
  const dir = await mkdtemp(join(tmpdir(), 'scout-read-load-'));
  try {
    const paths = await Promise.all(
      pages.map(async (page, i) => {
        const path = join(
          dir,
          `${String(i).padStart(4, '0')}-${page.name.replace(/\.[^.]+$/, '')}${page.ext}`,
        );
        await writeFile(path, page.body);
        return path;
      }),
    );

    // A. One --read of every file.
    if (parts.includes('A')) {
      await ensureBuilt();
      ctx.log(
        `scenario 19 A: --read over ${paths.length} files, ${BUSY_PROCESSES} busy processes (load ${load()})`,
      );
      const cli = await readMany(paths);
      rows.push([
        `A. --read over ${paths.length} pages, ${BUSY_PROCESSES} busy processes`,
        `${cli.read} read · ${cli.failed} not (${reasonList(cli.reasons)}) · exit ${cli.exitCode} · wall ${seconds(cli.wallMs)} · CPU ${seconds(cli.cpuMs)} · peak RSS ${mib(cli.peakRss)} · load ${cli.loadBefore} → ${cli.loadAfter}`,
      ]);
      targets.push({
        target: `--read over ${paths.length} pages under load reads every one`,
        measured: `${cli.read} of ${paths.length}`,
        met: cli.read === paths.length,
      });
      data.cli = cli;
    }

    // B. 100 result pages in flight: every tenth page, so B's pages are as varied as A's. No round
    // runs first: the reader's workers start with the first pages, as in a Scout idle a while.
    if (parts.includes('B')) {
      const chosen = paths
        .map((path, i) => ({ path, i }))
        .filter(({ i }) => i % 10 === 0)
        .slice(0, total);
      ctx.log(
        `scenario 19 B: ${ROUNDS} search rounds × ${READ_PER_SEARCH} result pages at once (load ${load()})`,
      );
      const rounds = await readResultsInFlight(
        chosen.map(({ path }) => path),
        chosen.map(({ i }) => pages[i]?.contentType ?? ''),
      );
      const pageMs = summarize(rounds.pageMs);
      const roundMs = summarize(rounds.roundMs);
      const searched = summarize(rounds.sites.searched);
      const asked = summarize(rounds.sites.asked);
      const sent = summarize(rounds.sites.sent);
      rows.push([
        `B. ${total} result pages in flight (${ROUNDS} rounds × ${READ_PER_SEARCH}), ${BUSY_PROCESSES} busy processes`,
        `${rounds.read} read · ${rounds.snippets} left to snippets (${reasonList(rounds.reasons)}) · fetch_url p50 ${seconds(pageMs.p50)}, max ${seconds(pageMs.max)} · rounds done p50 ${seconds(roundMs.p50)}, last ${seconds(rounds.wallMs)} · load ${rounds.loadBefore} → ${rounds.loadAfter}`,
      ]);
      rows.push([
        "B. the sites (their own process) and Scout's main thread",
        `searches asked p50 ${seconds(searched.p50)} (last ${seconds(searched.max)}) · pages asked p50 ${seconds(asked.p50)} (last ${seconds(asked.max)}), sent whole p50 ${seconds(sent.p50)} (last ${seconds(sent.max)}) · longest event-loop stall ${seconds(rounds.stallMs)} · main thread busy ${seconds(rounds.busyMs)}`,
      ]);
      targets.push({
        target: `${total} result pages in flight under load: ≥ 95 % read`,
        measured: `${rounds.read} of ${total}`,
        met: rounds.read >= Math.ceil(total * 0.95),
      });
      data.rounds = { ...rounds, pageMs, roundMs, searched, asked, sent };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return {
    id: 19,
    name: `Reading under load (${BUSY_PROCESSES} busy processes): --read over ${READ_DOCUMENTS} pages, ${total} result pages in flight`,
    rows,
    targets,
    data,
  };
}
