/**
 * Scenario 14's real-page corpora (page-reader.ts runs them after its own passes, or alone with
 * `--reader-corpus=…`). Each lives outside the repository and is never committed here; an unset
 * variable leaves its rows saying "skipped".
 *
 * - SCOUT_AEB_DIR: scrapinghub/article-extraction-benchmark (html/*.html or *.html.gz,
 *   ground-truth.json): 181 article pages, shingle F1 (test/reader/shingle-f1.ts).
 * - SCOUT_TRAF_DIR: trafilatura's `tests/` folder (evaldata.json, pages in cache/ or eval/): ~990
 *   pages, mostly German, passage presence (test/reader/passage-presence.ts), dev and held-out halves.
 * - SCOUT_WCXB_DIR: WCXB, the Web Content eXtraction Benchmark (metadata.json, {dev,test}/ground-truth
 *   and {dev,test}/html/*.html.gz): 2,008 English pages of seven page types, scored with its
 *   evaluate.py's word F1 (test/reader/word-f1.ts) per split and page type.
 *
 * Then the speed of the reader against plain Readability on the same real pages (WCXB's test split,
 * else AEB, else the fixture corpus), one after another on this thread: `runReadJob` (what the pool's
 * worker runs; no pool, no copies between threads) against linkedom's parseHTML and
 * `new Readability(doc).parse()`, both from the page's bytes (decoding included in both); and the
 * same pages through the pool (`readForModel`) for what fetch_url pays. Plain Readability runs on
 * linkedom as published (the devDependency `linkedom-published`), as anyone using the two packages
 * runs it; Scout's reader runs on linkedom as Scout patches it (patches/), and a row gives plain
 * Readability on that patched linkedom too, so the share of the gain that is the DOM's is in view.
 *
 * SCOUT_READER_DUMP=/tmp/file.json writes every scored page (id, split, type, URL, scores, the texts)
 * for error analysis.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Readability } from '@mozilla/readability';
import { parseHTML as parseScoutLinkedom } from 'linkedom';
import { parseHTML } from 'linkedom-published';
import { decodeDocument } from '../../src/reader/charset.js';
import { type ReadInput, readForModel } from '../../src/reader/read-document.js';
import { runReadJob } from '../../src/reader/read-job.js';
import type { ReaderPool } from '../../src/reader/reader-pool.js';
import { FETCH_MAX_BYTES, FETCH_MAX_CHARS } from '../../src/tools/fetch-policy.js';
import { pageOutput } from '../../src/tools/fetch-url-tool.js';
import { htmlToText } from '../../src/tools/html-to-text.js';
import { truncateText } from '../../src/tools/page-text.js';
import {
  countPassages,
  isDevPage,
  type PassageCounts,
  type PassageItem,
  type PassageScore,
  passageScore,
} from '../../test/reader/passage-presence.js';
import { corpusScore, markdownToPlain, type PageScore, scorePage } from '../../test/reader/shingle-f1.js';
import { meanWordScore, scoreWordPage, type WordPageScore } from '../../test/reader/word-f1.js';
import type { BenchContext, TargetCheck } from '../context.js';
import { median, type Summary, summarize } from '../metrics.js';

const F1_TARGET = 0.95;
/** Issue 26: median time per real page. */
const MEDIAN_TARGET_MS = 30;
/** Issue 56: WCXB word F1 ahead of plain Readability by this much overall (test split, the reader's extraction). */
const WCXB_MARGIN = 0.04;
/** Issue 56: passage F1 on trafilatura's evaluation corpus (trafilatura 2.2 itself: 0.925). */
const TRAF_TARGET = 0.93;
/** Issue 56: the reader's time per page, at most this share of plain Readability's. */
const SPEED_RATIO_TARGET = 0.7;
/** Timings of each page by each reader in the speed section; each reader's fastest counts. */
const SPEED_ROUNDS = 3;
/** What fetch_url gave the model of a page before issue 26 (FETCH_MAX_CHARS was 8,000 then). */
const OLD_MAX_CHARS = 8_000;
/** Pages the pool is given at once in the corpus passes: both workers busy, memory bounded. */
const IN_FLIGHT = 6;

export interface BenchPage {
  name: string;
  input: ReadInput;
  hostile: boolean;
  /** The article text it should give (corpus and AEB pages). */
  expected?: string;
}

/** Rows, targets and data a part of the scenario adds. */
export interface Section {
  rows: Array<[string, string]>;
  targets: TargetCheck[];
  data: Record<string, unknown>;
}

const MARKER_RE = /^\[… \d+ paragraphs? skipped …\]$/gm;
/** The reader's Markdown as plain words, skip markers removed (the shingle metric's input). */
export const plain = (text: string) => markdownToPlain(text.replace(MARKER_RE, ''));

export const f3 = (n: number) => n.toFixed(3);
export const scoreText = (s: PageScore) => `F1 ${f3(s.f1)} · P ${f3(s.precision)} · R ${f3(s.recall)}`;
export const timeText = (s: Summary) =>
  `p50 ${s.p50.toFixed(1)} ms · p99 ${s.p99.toFixed(1)} ms · max ${s.max.toFixed(1)} ms`;
const passageText = (s: PassageScore) =>
  `P ${f3(s.precision)} · R ${f3(s.recall)} · F1 ${f3(s.f1)} (TP ${s.tp}, FP ${s.fp}, FN ${s.fn})`;

/** What fetch_url does with a page: its text or the notice the model would get. */
export async function read(pool: ReaderPool, page: BenchPage, maxChars = FETCH_MAX_CHARS): Promise<string> {
  try {
    return (await readForModel(page.input, { maxChars, pool })).selection.text;
  } catch (err) {
    if (err instanceof Error) return `notice: ${err.message}`;
    throw err;
  }
}

/** fetch_url before issue 26: the header's charset (else UTF-8), every element's text, the first 8,000 characters. */
export async function oldReader(page: BenchPage, cut: boolean): Promise<string> {
  const type = page.input.contentType.toLowerCase();
  // PDFs were refused ("unsupported content type"): the model got nothing of them.
  if (!type.includes('html')) return '';
  const charset = /charset=([^;\s]+)/.exec(type)?.[1]?.replace(/"/g, '') ?? 'utf-8';
  let raw: string;
  try {
    raw = new TextDecoder(charset).decode(page.input.body);
  } catch {
    raw = new TextDecoder('utf-8').decode(page.input.body);
  }
  const maxChars = cut ? OLD_MAX_CHARS : Number.POSITIVE_INFINITY;
  const { text } = await htmlToText(raw, { maxChars });
  return cut ? truncateText(text, OLD_MAX_CHARS).text : text;
}

/** Plain Mozilla Readability on linkedom, as a page's bytes decoded the reader's way: its article's text. */
export function plainReadability(input: ReadInput, parse = parseHTML): string | undefined {
  try {
    const { document } = parse(decodeDocument(input.body, input.contentType).text);
    return new Readability(document as never).parse()?.textContent ?? undefined;
  } catch {
    return undefined;
  }
}

interface ModelOutput {
  /** fetch_url's output: header line, text, link list (undefined: the reader refused the page). */
  text: string | undefined;
  /** The reader's text alone as plain words (no header, no link list, no Markdown syntax). */
  plain: string;
  method: string;
  error?: string;
}

/** fetch_url's output for a page (header line, text, link list), and which candidate the reader chose. */
export async function modelOutput(
  pool: ReaderPool,
  input: ReadInput,
  maxChars = FETCH_MAX_CHARS,
  truncated = false,
): Promise<ModelOutput> {
  try {
    const result = await readForModel(input, { maxChars, pool });
    const doc = { body: input.body, contentType: input.contentType, url: new URL(input.url), truncated };
    return {
      text: pageOutput(result, doc, 'focus').text,
      plain: plain(result.selection.text),
      method: result.method,
    };
  } catch (err) {
    // A page the reader refuses gives the model a notice, none of the page's text.
    return { text: undefined, plain: '', method: 'refused', error: String(err) };
  }
}

interface QualityRow extends ReturnType<typeof scorePage> {
  name: string;
}

export async function quality(
  pages: BenchPage[],
  predict: (page: BenchPage) => Promise<string>,
): Promise<PageScore & { worst: string; pages: QualityRow[] }> {
  const rows: QualityRow[] = [];
  for (const page of pages)
    rows.push({ name: page.name, ...scorePage(page.expected ?? '', await predict(page)) });
  const score = corpusScore(rows);
  const worst = [...rows]
    .sort((a, b) => a.f1 - b.f1)
    .slice(0, 3)
    .map((r) => `${r.name} ${r.f1.toFixed(2)}`)
    .join(', ');
  return { ...score, worst, pages: rows };
}

/** The score without its per-page rows (for the result's data). */
const brief = <T extends { pages: unknown }>({ pages: _pages, ...rest }: T) => rest;

// ─── AEB ────────────────────────────────────────────────────────────────────────────────────────

/** The article-extraction benchmark's pages, when SCOUT_AEB_DIR names a checkout of it. */
export function aebPages(dir: string): BenchPage[] {
  const truth = JSON.parse(readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as Record<
    string,
    { articleBody?: string; url: string }
  >;
  return Object.entries(truth).map(([key, page]) => {
    const plainFile = path.join(dir, 'html', `${key}.html`);
    const body = existsSync(plainFile)
      ? readFileSync(plainFile)
      : gunzipSync(readFileSync(`${plainFile}.gz`));
    // The benchmark stores every page as UTF-8, whatever its own <meta charset> says.
    return {
      name: key.slice(0, 8),
      input: { body, contentType: 'text/html; charset=utf-8', url: page.url },
      hostile: false,
      expected: page.articleBody ?? '',
    };
  });
}

async function aebSection(ctx: BenchContext, pool: ReaderPool, aebSet: BenchPage[], dump?: unknown[]) {
  const section: Section = { rows: [], targets: [], data: {} };
  ctx.log(`scenario 14: ${aebSet.length} article-extraction-benchmark pages from SCOUT_AEB_DIR`);
  const times: number[] = [];
  const score = await quality(aebSet, async (p) => {
    const started = performance.now();
    const text = await read(pool, p, Number.POSITIVE_INFINITY);
    times.push(performance.now() - started);
    return plain(text);
  });
  const received = await quality(aebSet, async (p) => plain(await read(pool, p)));
  const old = await quality(aebSet, (p) => oldReader(p, true));
  const readability = await quality(aebSet, async (p) => plainReadability(p.input) ?? '');
  const time = summarize(times);
  section.rows.push(
    [`AEB (${aebSet.length} real pages): Scout's reader, whole text`, scoreText(score)],
    ['AEB: what the model receives (default budget, no focus; header line left off)', scoreText(received)],
    ['AEB: plain Readability on linkedom (textContent), whole', scoreText(readability)],
    ['AEB: old reader, first 8,000 characters', scoreText(old)],
    ['AEB: time per page (whole text)', timeText(time)],
  );
  section.targets.push({
    target: 'Real pages (AEB): F1 ≥ 0.95, precision ≥ 0.92, median ≤ 30 ms',
    measured: `F1 ${f3(score.f1)}, P ${f3(score.precision)}, median ${time.p50.toFixed(1)} ms`,
    met: score.f1 >= F1_TARGET && score.precision >= 0.92 && time.p50 <= MEDIAN_TARGET_MS,
  });
  section.data.aeb = {
    score: brief(score),
    received: brief(received),
    readability: brief(readability),
    old: brief(old),
    time,
  };
  if (dump)
    for (const [i, page] of aebSet.entries())
      dump.push({
        corpus: 'aeb',
        id: page.name,
        url: page.input.url,
        scoutWholeF1: score.pages[i]?.f1,
        scoutReceivedF1: received.pages[i]?.f1,
        readabilityF1: readability.pages[i]?.f1,
      });
  return section;
}

// ─── trafilatura ────────────────────────────────────────────────────────────────────────────────

export interface TrafPage {
  url: string;
  dev: boolean;
  item: PassageItem;
  input: ReadInput;
}

/** trafilatura's evaluation corpus, when SCOUT_TRAF_DIR names its tests/ folder: each page from cache/, else eval/. */
export function trafilaturaPages(dir: string): TrafPage[] {
  const data = JSON.parse(readFileSync(path.join(dir, 'evaldata.json'), 'utf8')) as Record<
    string,
    PassageItem & { file: string }
  >;
  const pages: TrafPage[] = [];
  for (const [url, entry] of Object.entries(data)) {
    const file = ['cache', 'eval'].map((sub) => path.join(dir, sub, entry.file)).find(existsSync);
    if (!file) continue;
    // No Content-Type: the page's own <meta charset> (or UTF-8) decides, as for a server that sends none.
    pages.push({
      url,
      dev: isDevPage(url),
      item: { with: entry.with, without: entry.without },
      input: { body: readFileSync(file), contentType: 'text/html', url },
    });
  }
  return pages;
}

/**
 * `step` for every item, in order, with up to IN_FLIGHT of them unfinished: a step starts its pool work,
 * does this thread's work while the workers run, then awaits the pool's answers.
 */
async function overlapped<T>(
  items: readonly T[],
  step: (item: T, i: number) => Promise<void>,
): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  for (const [i, item] of items.entries()) {
    const tracked: Promise<void> = step(item, i).finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    while (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
}

async function trafilaturaSection(
  ctx: BenchContext,
  pool: ReaderPool,
  dir: string,
  dump?: unknown[],
): Promise<Section> {
  const section: Section = { rows: [], targets: [], data: {} };
  const pages = trafilaturaPages(dir);
  ctx.log(`scenario 14: ${pages.length} pages of trafilatura's evaluation corpus from SCOUT_TRAF_DIR`);
  const started = performance.now();
  const scout: PassageCounts[] = new Array(pages.length);
  const extraction: PassageCounts[] = new Array(pages.length);
  const readability: PassageCounts[] = new Array(pages.length);
  const methods = new Map<string, number>();
  // Every page through fetch_url's reader (the pool's workers), within the budget and whole, and
  // meanwhile on this thread plain Readability.
  await overlapped(pages, async (page, i) => {
    const pending = Promise.all([
      modelOutput(pool, page.input),
      modelOutput(pool, page.input, Number.POSITIVE_INFINITY),
    ]);
    const rText = plainReadability(page.input);
    readability[i] = countPassages(page.item, rText);
    const [{ text, method }, whole] = await pending;
    scout[i] = countPassages(page.item, text);
    // The extraction as another extractor's text output is scored: all of it, no header line, plain
    // words (a link's target or `**` inside a sentence would split a passage).
    extraction[i] = countPassages(page.item, whole.text === undefined ? undefined : whole.plain);
    methods.set(method, (methods.get(method) ?? 0) + 1);
    if (dump)
      dump.push({
        corpus: 'trafilatura',
        id: page.url,
        split: page.dev ? 'dev' : 'held-out',
        url: page.url,
        method,
        scout: scout[i],
        extraction: extraction[i],
        readability: readability[i],
        scoutText: text,
        extractionText: whole.plain,
        readabilityText: rText,
      });
  });
  const ms = performance.now() - started;
  const split = (counts: PassageCounts[], dev: boolean | undefined) =>
    passageScore(counts.filter((_, i) => dev === undefined || pages[i]?.dev === dev));
  const devCount = pages.filter((p) => p.dev).length;
  const parts = [
    ['all', undefined, pages.length],
    ['dev', true, devCount],
    ['held-out', false, pages.length - devCount],
  ] as const;
  const scores: Record<string, { scout: PassageScore; extraction: PassageScore; readability: PassageScore }> =
    {};
  for (const [label, dev, count] of parts) {
    const s = split(scout, dev);
    const e = split(extraction, dev);
    const r = split(readability, dev);
    scores[label] = { scout: s, extraction: e, readability: r };
    section.rows.push(
      [
        `trafilatura corpus, ${label} (${count} pages): what the model gets (header line included)`,
        passageText(s),
      ],
      [`trafilatura corpus, ${label}: the reader's extraction (whole text as plain words)`, passageText(e)],
      [`trafilatura corpus, ${label}: plain Readability on linkedom (textContent)`, passageText(r)],
    );
  }
  const all = scores.all;
  if (all)
    section.targets.push({
      target: `trafilatura's corpus, the reader's extraction (whole text as plain words): passage F1 ≥ ${TRAF_TARGET} (trafilatura 2.2: 0.925)`,
      measured: `${f3(all.extraction.f1)}; what the model gets ${f3(all.scout.f1)} (header line, ${FETCH_MAX_CHARS.toLocaleString('en')}-char budget); plain Readability ${f3(all.readability.f1)}`,
      met: all.extraction.f1 >= TRAF_TARGET,
    });
  const methodList = [...methods].sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${n}`);
  section.rows.push(
    ['trafilatura corpus: candidate the reader chose', methodList.join(' · ')],
    [
      'trafilatura corpus: the whole pass (both readers, pool and this thread)',
      `${(ms / 1000).toFixed(1)} s`,
    ],
  );
  section.data.trafilatura = { scores, methods: Object.fromEntries(methods), ms };
  return section;
}

// ─── WCXB ───────────────────────────────────────────────────────────────────────────────────────

export const WCXB_SPLITS = ['dev', 'test'] as const;
export type WcxbSplit = (typeof WCXB_SPLITS)[number];
/** evaluate.py's TYPE_ORDER. */
const WCXB_TYPES = ['article', 'forum', 'product', 'collection', 'listing', 'documentation', 'service'];

export interface WcxbRef {
  id: string;
  split: WcxbSplit;
  dir: string;
}

export interface WcxbPage extends WcxbRef {
  type: string;
  url: string;
  truth: { mainContent: string; with: string[]; without: string[] };
  input: ReadInput;
  /** The page is longer than fetch_url downloads: both readers get its first FETCH_MAX_BYTES. */
  truncated: boolean;
}

/** The pages of a split as evaluate.py finds them: every ground-truth file, in name order. */
export function wcxbRefs(dir: string, split: WcxbSplit): WcxbRef[] {
  const truthDir = path.join(dir, split, 'ground-truth');
  if (!existsSync(truthDir)) return [];
  return readdirSync(truthDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ id: f.slice(0, -'.json'.length), split, dir }));
}

/** The page type as evaluate.py's get_page_type reads it from the ground-truth file. */
function wcxbType(data: { _internal?: { page_type?: unknown } | null }): string {
  const pt = data._internal?.page_type;
  const type =
    pt && typeof pt === 'object'
      ? ((pt as { primary?: string }).primary ?? 'article')
      : typeof pt === 'string'
        ? pt
        : 'article';
  return type === 'category' ? 'collection' : type;
}

export function loadWcxbPage(
  ref: WcxbRef,
  domains: Record<string, { domain?: string }>,
): WcxbPage | undefined {
  const data = JSON.parse(
    readFileSync(path.join(ref.dir, ref.split, 'ground-truth', `${ref.id}.json`), 'utf8'),
  );
  const gt = data.ground_truth;
  // evaluate.py skips a file whose ground_truth is not an object.
  if (!gt || typeof gt !== 'object' || Array.isArray(gt)) return undefined;
  const html = path.join(ref.dir, ref.split, 'html', `${ref.id}.html.gz`);
  const full = existsSync(html) ? gunzipSync(readFileSync(html)) : Buffer.alloc(0);
  // Six ground-truth files have no URL: the domain metadata.json gives (some give none) stands in.
  const url: string =
    data.url || `https://${domains[ref.id]?.domain || 'wcxb.invalid'}/${ref.split}/${ref.id}`;
  const truncated = full.length > FETCH_MAX_BYTES;
  return {
    ...ref,
    type: wcxbType(data),
    url,
    truth: { mainContent: gt.main_content || '', with: gt.with || [], without: gt.without || [] },
    // Every page is stored as UTF-8 (evaluate.py's gzip.open(…, encoding='utf-8')).
    input: {
      body: truncated ? full.subarray(0, FETCH_MAX_BYTES) : full,
      contentType: 'text/html; charset=utf-8',
      url,
    },
    truncated,
  };
}

export function wcxbDomains(dir: string): Record<string, { domain?: string }> {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'metadata.json'), 'utf8')).files ?? {};
  } catch {
    return {};
  }
}

interface WcxbResult {
  id: string;
  split: WcxbSplit;
  type: string;
  url: string;
  method: string;
  /** What the model gets (default budget, header line and link list). */
  model: WordPageScore;
  /** The same output with no budget. */
  whole: WordPageScore;
  /** The reader's whole text as plain words: no header line, no link list, no Markdown syntax. */
  wholePlain: WordPageScore;
  readability: WordPageScore;
}

interface WcxbCell {
  n: number;
  model: WordPageScore;
  whole: WordPageScore;
  wholePlain: WordPageScore;
  readability: WordPageScore;
}

function cell(results: readonly WcxbResult[]): WcxbCell {
  return {
    n: results.length,
    model: meanWordScore(results.map((r) => r.model)),
    whole: meanWordScore(results.map((r) => r.whole)),
    wholePlain: meanWordScore(results.map((r) => r.wholePlain)),
    readability: meanWordScore(results.map((r) => r.readability)),
  };
}

/** Every page: what the model gets and the whole text through the pool; plain Readability on this thread meanwhile. */
async function wcxbPass(
  ctx: BenchContext,
  pool: ReaderPool,
  refs: WcxbRef[],
  domains: Record<string, { domain?: string }>,
  dump?: unknown[],
): Promise<WcxbResult[]> {
  const results: WcxbResult[] = [];
  await overlapped(refs, async (ref) => {
    const page = loadWcxbPage(ref, domains);
    if (!page) return;
    const pending = Promise.all([
      modelOutput(pool, page.input, FETCH_MAX_CHARS, page.truncated),
      modelOutput(pool, page.input, Number.POSITIVE_INFINITY, page.truncated),
    ]);
    const rText = plainReadability(page.input);
    const [model, whole] = await pending;
    const result: WcxbResult = {
      id: page.id,
      split: page.split,
      type: page.type,
      url: page.url,
      method: model.method,
      model: scoreWordPage(model.text ?? '', page.truth),
      whole: scoreWordPage(whole.text ?? '', page.truth),
      wholePlain: scoreWordPage(whole.plain, page.truth),
      // evaluate.py: a page with no prediction is scored as ''.
      readability: scoreWordPage(rText ?? '', page.truth),
    };
    results.push(result);
    if (dump)
      dump.push({
        corpus: 'wcxb',
        id: page.id,
        split: page.split,
        type: page.type,
        url: page.url,
        truncated: page.truncated,
        method: model.method,
        ...(model.error ? { error: model.error } : {}),
        scoutF1: result.model.f1,
        scoutWholeF1: result.whole.f1,
        scoutWholePlainF1: result.wholePlain.f1,
        readabilityF1: result.readability.f1,
        scout: result.model,
        scoutWhole: result.whole,
        readability: result.readability,
        scoutText: model.text,
        scoutWholeText: whole.text,
        readabilityText: rText,
      });
    if (results.length % 250 === 0) ctx.log(`scenario 14: WCXB ${results.length} of ${refs.length} pages`);
  });
  return results;
}

const pctText = (n: number) => `${(n * 100).toFixed(1)} %`;

/** One split's table: a row per page type (evaluate.py's order), then all pages. */
function wcxbTable(split: string, cells: Array<[string, WcxbCell]>): string {
  const lines = [
    `WCXB ${split}: word F1 (evaluate.py), mean over pages`,
    '',
    '| page type | N | Scout, model text | Scout, whole | Scout, whole as plain words | plain Readability |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const [type, c] of cells) {
    const bold = (s: string) => (type === 'all' ? `**${s}**` : s);
    lines.push(
      `| ${bold(type)} | ${c.n} | ${bold(f3(c.model.f1))} | ${f3(c.whole.f1)} | ${f3(c.wholePlain.f1)} | ${bold(f3(c.readability.f1))} |`,
    );
  }
  return lines.join('\n');
}

async function wcxbSection(
  ctx: BenchContext,
  pool: ReaderPool,
  dir: string,
  splits: readonly WcxbSplit[],
  dump?: unknown[],
): Promise<Section> {
  const section: Section = { rows: [], targets: [], data: {} };
  const domains = wcxbDomains(dir);
  const refs = splits.flatMap((split) => wcxbRefs(dir, split));
  ctx.log(`scenario 14: ${refs.length} WCXB pages (${splits.join(', ')}) from SCOUT_WCXB_DIR`);
  const started = performance.now();
  const results = await wcxbPass(ctx, pool, refs, domains, dump);
  const ms = performance.now() - started;
  const order = (a: WcxbResult, b: WcxbResult) => a.split.localeCompare(b.split) || a.id.localeCompare(b.id);
  results.sort(order);
  const tables: Record<string, Record<string, WcxbCell>> = {};
  const markdown: string[] = [];
  // 139 file ids are in both splits with the same HTML (WCXB's test split repeats them from dev):
  // the test split is read whole, as evaluate.py reads it, and without them.
  const devIds = new Set(wcxbRefs(dir, 'dev').map((r) => r.id));
  const parts: Array<[string, string, WcxbResult[]]> = [];
  for (const split of splits) {
    const inSplit = results.filter((r) => r.split === split);
    if (inSplit.length === 0) {
      section.rows.push([`WCXB ${split}`, `no pages in ${path.join(dir, split)}`]);
      continue;
    }
    parts.push([split, split, inSplit]);
    if (split === 'test')
      parts.push(['testOnly', 'test, pages not also in dev', inSplit.filter((r) => !devIds.has(r.id))]);
  }
  for (const [key, split, inSplit] of parts) {
    const types = [
      ...WCXB_TYPES,
      ...new Set(inSplit.map((r) => r.type).filter((t) => !WCXB_TYPES.includes(t))),
    ];
    const cells: Array<[string, WcxbCell]> = types
      .map((type): [string, WcxbCell] => [type, cell(inSplit.filter((r) => r.type === type))])
      .filter(([, c]) => c.n > 0);
    const all = cell(inSplit);
    cells.push(['all', all]);
    tables[key] = Object.fromEntries(cells);
    markdown.push(wcxbTable(split, cells));
    const s = (w: WordPageScore) => `F1 ${f3(w.f1)} (P ${f3(w.precision)} · R ${f3(w.recall)})`;
    section.rows.push(
      [
        `WCXB ${split} (${all.n} pages), all: what the model gets (header, ${FETCH_MAX_CHARS.toLocaleString('en')}-char budget, link list)`,
        s(all.model),
      ],
      [`WCXB ${split}: Scout, whole (same output, no budget)`, s(all.whole)],
      [
        `WCXB ${split}: Scout, whole as plain words (no header, no link list, no Markdown)`,
        s(all.wholePlain),
      ],
      [`WCXB ${split}: plain Readability on linkedom (textContent)`, s(all.readability)],
      [
        `WCXB ${split}: with / without snippets found`,
        `model text ${pctText(all.model.withRate)} / ${pctText(all.model.withoutRate)} · whole ${pctText(all.whole.withRate)} / ${pctText(all.whole.withoutRate)} · Readability ${pctText(all.readability.withRate)} / ${pctText(all.readability.withoutRate)}`,
      ],
    );
    for (const [type, c] of cells)
      if (type !== 'all')
        section.rows.push([
          `WCXB ${split}, ${type} (${c.n}): F1 model text · whole · whole plain · Readability`,
          `${f3(c.model.f1)} · ${f3(c.whole.f1)} · ${f3(c.wholePlain.f1)} · ${f3(c.readability.f1)} (${c.model.f1 >= c.readability.f1 ? '+' : ''}${f3(c.model.f1 - c.readability.f1)})`,
        ]);
  }
  const methods = new Map<string, number>();
  for (const r of results) methods.set(r.method, (methods.get(r.method) ?? 0) + 1);
  const methodList = [...methods].sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${n}`);
  section.rows.push(
    ['WCXB: candidate the reader chose (model text)', methodList.join(' · ')],
    [
      'WCXB: the whole pass (two readings per page on the pool, Readability on this thread)',
      `${(ms / 1000).toFixed(1)} s`,
    ],
  );
  const table = markdown.join('\n\n');
  ctx.log(table);
  const test = tables.test;
  if (test?.all) {
    // Extractor against extractor: the reader's whole text as plain words against Readability's whole
    // textContent. What the model gets (below) also pays the 16,000-character budget, the header line
    // and the link list, which plain Readability is not given.
    const worst = Object.entries(test)
      .filter(([type]) => type !== 'all')
      .map(([type, c]) => ({ type, margin: c.wholePlain.f1 - c.readability.f1 }))
      .sort((a, b) => a.margin - b.margin)[0];
    const margin = test.all.wholePlain.f1 - test.all.readability.f1;
    const sign = (n: number) => `${n >= 0 ? '+' : ''}${f3(n)}`;
    section.targets.push({
      target: `WCXB test split, the reader's extraction (whole text as plain words): word F1 ≥ plain Readability + ${WCXB_MARGIN} overall, and ≥ Readability on every page type`,
      measured: `${f3(test.all.wholePlain.f1)} vs ${f3(test.all.readability.f1)} (${sign(margin)}); worst type: ${worst ? `${worst.type} ${sign(worst.margin)}` : 'n/a'}; what the model gets ${f3(test.all.model.f1)}`,
      met: margin >= WCXB_MARGIN && (worst?.margin ?? 0) >= 0,
    });
  }
  section.data.wcxb = { tables, methods: Object.fromEntries(methods), ms, table };
  return section;
}

// ─── speed ──────────────────────────────────────────────────────────────────────────────────────

interface SpeedPage {
  name: string;
  input: ReadInput;
}

/** The reader's job as the pool's worker runs it, on this thread, from the page's bytes. */
async function scoutInThread(input: ReadInput): Promise<void> {
  try {
    await runReadJob({
      kind: 'document',
      type: 'html',
      body: input.body,
      contentType: input.contentType,
      url: input.url,
      maxChars: FETCH_MAX_CHARS,
    });
  } catch {
    // A page the reader fails on costs what it cost.
  }
}

async function timed(fn: () => unknown): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/**
 * Scout's reader against plain Readability, page by page on this thread after a warm-up pass, each
 * page timed SPEED_ROUNDS times by each reader and its fastest kept (which goes first rotates, so
 * none always pays another's garbage), then the same pages through the pool one after another.
 */
async function speedSection(
  ctx: BenchContext,
  pool: ReaderPool,
  pages: SpeedPage[],
  label: string,
): Promise<Section> {
  const section: Section = { rows: [], targets: [], data: {} };
  ctx.log(`scenario 14: speed on ${pages.length} pages (${label}): a warm-up pass, then one measured`);
  const onScoutLinkedom = (input: ReadInput) => plainReadability(input, parseScoutLinkedom);
  for (const page of pages) {
    await scoutInThread(page.input);
    plainReadability(page.input);
    onScoutLinkedom(page.input);
  }
  // Each reader's fastest of SPEED_ROUNDS timings per page: one timing of a 5 ms page can hold a
  // garbage collection or the machine's other work, and the per-page ratios then moved the median by
  // ±0.04 from run to run with nothing changed.
  const scout = pages.map(() => Number.POSITIVE_INFINITY);
  const readability = pages.map(() => Number.POSITIVE_INFINITY);
  const patched = pages.map(() => Number.POSITIVE_INFINITY);
  for (let round = 0; round < SPEED_ROUNDS; round++) {
    for (const [i, page] of pages.entries()) {
      // Which goes first rotates from page to page and round to round, so none always pays another's garbage.
      const runs = [
        async () => {
          scout[i] = Math.min(scout[i] as number, await timed(() => scoutInThread(page.input)));
        },
        async () => {
          readability[i] = Math.min(
            readability[i] as number,
            await timed(() => plainReadability(page.input)),
          );
        },
        async () => {
          patched[i] = Math.min(patched[i] as number, await timed(() => onScoutLinkedom(page.input)));
        },
      ];
      for (let k = 0; k < runs.length; k++) await runs[(i + round + k) % runs.length]?.();
    }
  }
  const ratios = scout.map((time, i) => time / (readability[i] as number));
  const patchedRatios = scout.map((time, i) => time / (patched[i] as number));
  // Through the pool, as fetch_url reads: decoding here, the job in a worker, the copies between.
  for (const page of pages.slice(0, 20))
    await readForModel(page.input, { maxChars: FETCH_MAX_CHARS, pool }).catch(() => {});
  const pooled: number[] = [];
  for (const page of pages)
    pooled.push(
      await timed(() => readForModel(page.input, { maxChars: FETCH_MAX_CHARS, pool }).catch(() => {})),
    );
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const scoutTime = summarize(scout);
  const readabilityTime = summarize(readability);
  const patchedTime = summarize(patched);
  const pooledTime = summarize(pooled);
  const ratio = median(ratios);
  const patchedRatio = median(patchedRatios);
  const totalRatio = sum(scout) / sum(readability);
  section.rows.push(
    [
      `speed, ${label} (${pages.length} pages, this thread, after a warm-up pass; each page's fastest of ${SPEED_ROUNDS}): Scout's reader (runReadJob, no pool)`,
      timeText(scoutTime),
    ],
    ['speed: plain Readability (linkedom as published: parseHTML + parse)', timeText(readabilityTime)],
    [
      'speed: Scout ÷ Readability, per page',
      `median ${ratio.toFixed(2)}× · ratio of medians ${(scoutTime.p50 / readabilityTime.p50).toFixed(2)}× · ratio of totals ${totalRatio.toFixed(2)}×`,
    ],
    [
      "speed: plain Readability on Scout's patched linkedom (the DOM's share of the gain)",
      `${timeText(patchedTime)}; Scout ÷ this, per page: median ${patchedRatio.toFixed(2)}× · ratio of totals ${(sum(scout) / sum(patched)).toFixed(2)}×`,
    ],
    [
      'speed: Scout through the pool (readForModel: decoding, the worker, the copies), one after another',
      `${timeText(pooledTime)} (median ${(pooledTime.p50 / readabilityTime.p50).toFixed(2)}× Readability's)`,
    ],
  );
  section.targets.push({
    target: `Reader time per page ≤ ${SPEED_RATIO_TARGET}× plain Readability's (same pages, same thread, median of per-page ratios)`,
    measured: `${ratio.toFixed(2)}× (${label}: Scout p50 ${scoutTime.p50.toFixed(1)} ms, Readability ${readabilityTime.p50.toFixed(1)} ms; through the pool ${pooledTime.p50.toFixed(1)} ms)`,
    met: ratio <= SPEED_RATIO_TARGET,
  });
  section.data.speed = {
    pages: label,
    count: pages.length,
    scout: scoutTime,
    readability: readabilityTime,
    readabilityOnScoutLinkedom: patchedTime,
    pooled: pooledTime,
    medianRatio: ratio,
    medianRatioOnScoutLinkedom: patchedRatio,
    totalRatio,
  };
  return section;
}

// ─── which corpora ──────────────────────────────────────────────────────────────────────────────

export interface CorpusChoice {
  aeb: boolean;
  trafilatura: boolean;
  wcxb: WcxbSplit[];
  speed: boolean;
}

export const ALL_CORPORA: CorpusChoice = { aeb: true, trafilatura: true, wcxb: ['dev', 'test'], speed: true };

/**
 * `--reader-corpus=` as a choice: comma-separated `aeb`, `traf`, `wcxb` (both splits), `wcxb:dev`,
 * `wcxb:test`, `speed`; undefined when empty (the whole scenario).
 */
export function parseCorpusChoice(spec: string): CorpusChoice | undefined {
  const tokens = spec
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  if (tokens.length === 0) return undefined;
  const choice: CorpusChoice = { aeb: false, trafilatura: false, wcxb: [], speed: false };
  const wcxb = new Set<WcxbSplit>();
  for (const token of tokens) {
    if (token === 'all') return { ...ALL_CORPORA };
    if (token === 'aeb') choice.aeb = true;
    else if (token === 'traf' || token === 'trafilatura') choice.trafilatura = true;
    else if (token === 'speed') choice.speed = true;
    else if (token === 'wcxb') for (const s of WCXB_SPLITS) wcxb.add(s);
    else if (token === 'wcxb:dev' || token === 'wcxb:test') wcxb.add(token.slice(5) as WcxbSplit);
    else
      throw new Error(
        `--reader-corpus: unknown "${token}" (aeb, traf, wcxb, wcxb:dev, wcxb:test, speed, all)`,
      );
  }
  choice.wcxb = WCXB_SPLITS.filter((s) => wcxb.has(s));
  return choice;
}

/** The corpora chosen, each scored where its variable names it, then the speed comparison. */
export async function readerCorpora(
  ctx: BenchContext,
  pool: ReaderPool,
  choice: CorpusChoice,
  fallbackSpeedPages: () => SpeedPage[],
): Promise<Section> {
  const out: Section = { rows: [], targets: [], data: {} };
  const add = (s: Section) => {
    out.rows.push(...s.rows);
    out.targets.push(...s.targets);
    Object.assign(out.data, s.data);
  };
  const dumpFile = process.env.SCOUT_READER_DUMP;
  const dump: unknown[] | undefined = dumpFile ? [] : undefined;

  const aebDir = process.env.SCOUT_AEB_DIR;
  let aebSet: BenchPage[] | undefined;
  if (choice.aeb) {
    if (aebDir) {
      aebSet = aebPages(aebDir);
      add(await aebSection(ctx, pool, aebSet, dump));
    } else out.rows.push(['AEB', 'skipped: SCOUT_AEB_DIR is not set']);
  }

  const trafDir = process.env.SCOUT_TRAF_DIR;
  if (choice.trafilatura) {
    if (trafDir && existsSync(path.join(trafDir, 'evaldata.json')))
      add(await trafilaturaSection(ctx, pool, trafDir, dump));
    else
      out.rows.push(['trafilatura corpus', 'skipped: SCOUT_TRAF_DIR is not set (or has no evaldata.json)']);
  }

  const wcxbDir = process.env.SCOUT_WCXB_DIR;
  const wcxbThere = !!wcxbDir && existsSync(path.join(wcxbDir, 'test', 'ground-truth'));
  if (choice.wcxb.length > 0) {
    if (wcxbDir && wcxbThere) add(await wcxbSection(ctx, pool, wcxbDir, choice.wcxb, dump));
    else out.rows.push(['WCXB', 'skipped: SCOUT_WCXB_DIR is not set (or has no test/ground-truth)']);
  }

  // Written and let go before the speed pass, so its texts do not weigh on that pass's heap.
  if (dumpFile && dump) {
    writeFileSync(dumpFile, JSON.stringify(dump));
    ctx.log(`scenario 14: ${dump.length} pages' results written to ${dumpFile}`);
    out.rows.push(['per-page results (SCOUT_READER_DUMP)', `${dump.length} rows in ${dumpFile}`]);
    dump.length = 0;
  }

  if (choice.speed) {
    let pages: SpeedPage[];
    let label: string;
    if (wcxbDir && wcxbThere) {
      const domains = wcxbDomains(wcxbDir);
      pages = wcxbRefs(wcxbDir, 'test')
        .map((ref) => loadWcxbPage(ref, domains))
        .filter((p): p is WcxbPage => p !== undefined)
        .map((p) => ({ name: p.id, input: p.input }));
      label = 'WCXB test split';
    } else if (aebDir) {
      pages = aebSet ?? aebPages(aebDir);
      label = 'AEB';
    } else {
      pages = fallbackSpeedPages();
      label = 'the fixture corpus (no SCOUT_WCXB_DIR or SCOUT_AEB_DIR)';
    }
    add(await speedSection(ctx, pool, pages, label));
  }

  return out;
}
