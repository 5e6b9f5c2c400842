/**
 * Text of a PDF, extracted by pdf.js (through unpdf) in a process of its own. A PDF bomb (a small
 * file whose streams inflate to gigabytes) or a pathological file must cost bounded memory and time:
 * a worker thread's heap limit did not bound pdf.js's ArrayBuffers (a 1 MB bomb took Scout past
 * 1 GB), so the reading runs in a child process with
 *   - a small V8 heap (`--max-old-space-size`),
 *   - a cap on every typed array and on all of them together (pdf-child-source.ts),
 *   - a watchdog on its resident memory (Linux's /proc), killing it past PDF_MAX_RSS_MB,
 *   - a limit on its own CPU time (Linux's /proc: a reader waiting for a busy machine's cores is not
 *     charged for it; a wall-clock bound ten times as long stays behind it, and is the limit where
 *     /proc is missing),
 *   - at most PDF_CONCURRENCY such processes at once, the rest waiting their turn fairly: a freed
 *     slot goes to the longest-waiting reading of a conversation that holds none, so one
 *     conversation (an agent reading several PDFs at once) holds at most one slot while others wait,
 * so however many bombs arrive together, PDF reading stays under PDF_CONCURRENCY × PDF_MAX_RSS_MB.
 * Pages past PDF_MAX_PAGES and text past PDF_MAX_CHARS are not read; files over PDF_MAX_BYTES not at all.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { type Phrase, phrase } from '../i18n/phrase.js';
import { PDF_CHILD_SOURCE } from './pdf-child-source.js';
import { readingOwner } from './reading-owner.js';

/** Pages read at most. */
export const PDF_MAX_PAGES = 100;
/** Larger files are not read (a notice says so): a PDF this big is scans or images, not text. */
export const PDF_MAX_BYTES = 32 * 1024 * 1024;
/** The same, as the notices name it. */
const PDF_MAX_SIZE = `${PDF_MAX_BYTES / 1024 / 1024} MB`;
/** CPU time one extraction may use (its own process's, from /proc; waiting for a slot not included). */
export const PDF_CPU_LIMIT_MS = 5_000;
/** Wall-clock bound behind the CPU limit (a reader that waits on nothing); the limit without /proc. */
export const PDF_WALL_LIMIT_MS = 10 * PDF_CPU_LIMIT_MS;
/** The limit where a reader's CPU time cannot be read (no /proc): wall clock, as before. */
const PDF_WALL_ONLY_LIMIT_MS = 15_000;
/** Text past this many characters is not collected (the caller truncates to its token budget anyway). */
const PDF_MAX_CHARS = 2_000_000;
/** The reader's V8 heap: pdf.js on a normal document needs far less. */
const PDF_HEAP_MB = 64;
/** Largest single typed array pdf.js may make (a decoded stream, a font) beside the file itself. */
const PDF_MAX_ARRAY_BYTES = 16 * 1024 * 1024;
/** All typed arrays a reading may make, freed or not: decoding past this is a bomb, not a document. */
const PDF_MAX_ALLOCATED_BYTES = 512 * 1024 * 1024;
/** Resident memory of one reader process at which it is killed. */
export const PDF_MAX_RSS_MB = 140;
/** How often the watchdog reads the reader's resident memory. */
const RSS_POLL_MS = 10;
/** Niceness of a reader process (19 is the lowest priority). */
const PDF_NICENESS = 10;
/** Reader processes at once; more PDFs wait for a slot. */
export const PDF_CONCURRENCY = 2;

export type PdfFailure = 'not-pdf' | 'unreadable' | 'too-slow' | 'too-big' | 'encrypted' | 'too-much-memory';

export type PdfResult =
  | { ok: true; text: string; pages: number; pagesRead: number; title?: string; author?: string }
  | { ok: false; reason: PdfFailure };

/** Resolved with the first PDF, not at start (a package lookup on disk). */
let unpdfFile: string | undefined;
function unpdfPath(): string {
  unpdfFile ??= createRequire(import.meta.url).resolve('unpdf');
  return unpdfFile;
}

/** True when the bytes start like a PDF (within the first 1 KB, as readers allow). */
export function looksLikePdf(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  return head.includes('%PDF-');
}

/** One line telling the user why a PDF's text is missing (a notice of the turn). */
export function pdfFailureNotice(reason: PdfFailure, name: string): Phrase {
  switch (reason) {
    case 'not-pdf':
      return phrase('context.not-pdf', { name });
    case 'too-slow':
      return phrase('context.pdf-too-slow', { name });
    case 'too-big':
      return phrase('context.pdf-too-big', { name, limit: PDF_MAX_SIZE });
    case 'encrypted':
      return phrase('context.pdf-encrypted', { name });
    case 'too-much-memory':
      return phrase('context.pdf-too-much-memory', { name });
    default:
      return phrase('context.pdf-unreadable', { name });
  }
}

/**
 * The same line for a model (fetch_url's tool result, through src/reader): model-facing text, so
 * fixed English wording here rather than the user catalog (the same words as its `en` strings).
 */
export function describePdfFailure(reason: PdfFailure, name = 'the PDF'): string {
  switch (reason) {
    case 'not-pdf':
      return `Skipped ${name}: it is not a valid PDF.`;
    case 'too-slow':
      return `Reading ${name} took too long; skipped.`;
    case 'too-big':
      return `Skipped ${name}: PDFs larger than ${PDF_MAX_SIZE} are not read.`;
    case 'encrypted':
      return `Skipped ${name}: it is password-protected, so its text cannot be read.`;
    case 'too-much-memory':
      return `Skipped ${name}: reading it needed more memory than a PDF may use (a damaged file, or one built to do that).`;
    default:
      return `Could not read text from ${name}; skipped.`;
  }
}

/**
 * `owner`: the conversation reading it (default: the one its signal was marked with, else a
 * reading of its own); a conversation holds at most one reader slot while others wait.
 * `whileQueued`: called when the reading has to wait for a slot; what it returns is called when the
 * wait ends (fetch_url holds its call's time limit across it: a PDF waiting behind others is not the
 * fetch being slow).
 */
export async function extractPdfText(
  bytes: Uint8Array,
  signal?: AbortSignal,
  owner: string | undefined = readingOwner(signal),
  whileQueued?: () => () => void,
): Promise<PdfResult> {
  if (!looksLikePdf(bytes)) return { ok: false, reason: 'not-pdf' };
  if (bytes.byteLength > PDF_MAX_BYTES) return { ok: false, reason: 'too-big' };
  const holder = owner ?? Symbol('reading');
  const waited = readerSlots.isFull() ? whileQueued?.() : undefined;
  let taken: boolean;
  try {
    taken = await readerSlots.take(holder, signal);
  } finally {
    waited?.();
  }
  if (!taken) return { ok: false, reason: 'too-slow' };
  try {
    return await readInChild(bytes, signal);
  } finally {
    readerSlots.release(holder);
  }
}

/**
 * The reader slots, shared fairly between conversations: a slot is taken at once while one is free;
 * a freed slot goes to the longest-waiting reading whose owner holds no slot, or, when every waiting
 * owner already holds one, to the longest-waiting reading.
 */
export class ReaderSlots {
  readonly #held = new Map<string | symbol, number>();
  readonly #waiting: Array<{ owner: string | symbol; grant: () => void }> = [];
  #running = 0;

  constructor(private readonly size: number) {}

  /** Every slot is taken: a reading asking now waits. */
  isFull(): boolean {
    return this.#running >= this.size;
  }

  /** Resolves true with a slot, or false when `signal` aborted first. */
  take(owner: string | symbol, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.#running < this.size) {
      this.#running++;
      this.#hold(owner, 1);
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const entry = {
        owner,
        // release hands its slot over: `#running` stays the same.
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#hold(owner, 1);
          resolve(true);
        },
      };
      const onAbort = () => {
        const at = this.#waiting.indexOf(entry);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(false);
      };
      this.#waiting.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  release(owner: string | symbol): void {
    this.#hold(owner, -1);
    if (this.#waiting.length === 0) {
      this.#running--;
      return;
    }
    let at = this.#waiting.findIndex((w) => !this.#held.has(w.owner));
    if (at < 0) at = 0;
    const [next] = this.#waiting.splice(at, 1);
    next!.grant();
  }

  #hold(owner: string | symbol, by: number): void {
    const count = (this.#held.get(owner) ?? 0) + by;
    if (count > 0) this.#held.set(owner, count);
    else this.#held.delete(owner);
  }
}

const readerSlots = new ReaderSlots(PDF_CONCURRENCY);

/** For tests: called with each reader process's pid as soon as it is spawned. */
export const pdfReaderHooks: { spawned?: (pid: number) => void } = {};

function readInChild(bytes: Uint8Array, signal: AbortSignal | undefined): Promise<PdfResult> {
  return new Promise<PdfResult>((resolve) => {
    const limits = {
      unpdf: unpdfPath(),
      maxPages: PDF_MAX_PAGES,
      maxChars: PDF_MAX_CHARS,
      maxArray: PDF_MAX_ARRAY_BYTES,
      maxAllocated: PDF_MAX_ALLOCATED_BYTES,
    };
    let child: ChildProcess;
    try {
      child = spawn(
        process.execPath,
        [`--max-old-space-size=${PDF_HEAP_MB}`, '--max-semi-space-size=2', '-e', PDF_CHILD_SOURCE],
        {
          // Only what the reader needs: no secrets of Scout's environment, no loader flags (tsx).
          env: { SCOUT_PDF: JSON.stringify(limits) },
          stdio: ['pipe', 'ignore', 'pipe', 'ipc'],
        },
      );
    } catch {
      resolve({ ok: false, reason: 'unreadable' });
      return;
    }
    if (child.pid !== undefined) pdfReaderHooks.spawned?.(child.pid);
    // Reading is background work: on a busy machine the conversations' event loop goes first.
    try {
      if (child.pid !== undefined) setPriority(child.pid, PDF_NICENESS);
    } catch {
      // not allowed here (some containers): the reader runs at normal priority
    }
    let settled = false;
    let killedFor: PdfFailure | undefined;
    let stderrTail = '';
    const finish = (result: PdfResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watchdog);
      signal?.removeEventListener('abort', onAbort);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      resolve(result);
    };
    const kill = (reason: PdfFailure) => {
      killedFor ??= reason;
      finish({ ok: false, reason });
    };
    const onAbort = () => kill('too-slow');
    // The CPU limit is the watchdog's; this bound is for a reader that waits on nothing. Where its
    // CPU time cannot be read, the wall clock is the limit (the watchdog says so on its first read).
    let timer = setTimeout(() => kill('too-slow'), PDF_WALL_LIMIT_MS);
    signal?.addEventListener('abort', onAbort, { once: true });
    const watchdog = watchReader(child, {
      overMemory: () => kill('too-much-memory'),
      overCpu: () => kill('too-slow'),
      noCpuClock: () => {
        clearTimeout(timer);
        timer = setTimeout(() => kill('too-slow'), PDF_WALL_ONLY_LIMIT_MS);
      },
    });
    child.stderr?.setEncoding('utf8');
    // Only the end matters (V8's "heap out of memory"): keep a bounded tail.
    child.stderr?.on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-4096);
    });
    child.on('message', (message: PdfResult) => finish(message));
    child.on('error', () => finish({ ok: false, reason: 'unreadable' }));
    // 'close', not 'exit': the answer on the IPC channel is in by then.
    child.on('close', (code, exitSignal) => {
      // V8 aborts when the heap limit is hit: that, like the watchdog, is a memory bomb.
      const outOfMemory =
        /heap out of memory|allocation failed/i.test(stderrTail) || exitSignal === 'SIGABRT' || code === 134;
      finish({ ok: false, reason: killedFor ?? (outOfMemory ? 'too-much-memory' : 'unreadable') });
    });
    // A reader that died early closes its end: the close handler above reports why.
    child.stdin?.on('error', () => {});
    child.stdin?.end(bytes);
  });
}

/**
 * Reads the child's resident memory and CPU time every RSS_POLL_MS (Linux /proc): `overMemory` past
 * PDF_MAX_RSS_MB, `overCpu` past PDF_CPU_LIMIT_MS of its own CPU time (user and system), and
 * `noCpuClock` once if its CPU time cannot be read. Where /proc is missing the heap and typed-array
 * caps still hold.
 */
function watchReader(
  child: ChildProcess,
  on: { overMemory: () => void; overCpu: () => void; noCpuClock: () => void },
): NodeJS.Timeout {
  let reading = false;
  let clockChecked = false;
  const timer = setInterval(() => {
    if (reading || child.pid === undefined) return;
    reading = true;
    Promise.all([residentKb(child.pid), cpuMs(child.pid)])
      .then(([kb, cpu]) => {
        if (kb !== undefined && kb > PDF_MAX_RSS_MB * 1024) on.overMemory();
        if (cpu !== undefined && cpu > PDF_CPU_LIMIT_MS) on.overCpu();
        if (!clockChecked && child.exitCode === null) {
          clockChecked = true;
          if (cpu === undefined) on.noCpuClock();
        }
      })
      .finally(() => {
        reading = false;
      });
  }, RSS_POLL_MS);
  timer.unref();
  return timer;
}

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux everywhere). */
const USER_HZ = 100;

/** CPU time a process has used (user + system) in ms, or undefined (no /proc, or it is gone). */
export async function cpuMs(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'latin1');
    // Fields after the command name (in parentheses, which may hold spaces): utime is the 14th
    // field of the line, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / USER_HZ : undefined;
  } catch {
    return undefined;
  }
}

/** VmRSS of a process in kB, or undefined (no /proc, or the process is gone). */
export async function residentKb(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'latin1');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}
