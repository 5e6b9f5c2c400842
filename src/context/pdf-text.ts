/**
 * Text of a PDF, extracted by pdf.js (through unpdf) in a worker thread: a PDF bomb or a pathological
 * file can spin the parser or eat memory, so it runs off the event loop with a time limit and a heap
 * cap, and the worker is killed when either is hit. Pages past the cap are not read.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Pages read at most. */
export const PDF_MAX_PAGES = 100;
/** Wall-clock budget of one extraction. */
const PDF_TIME_LIMIT_MS = 15_000;
/** Heap of the worker: pdf.js on a normal document needs far less. */
const PDF_WORKER_HEAP_MB = 256;
/** Text past this many characters is not collected (the caller truncates to its token budget anyway). */
const PDF_MAX_CHARS = 2_000_000;

export type PdfResult =
  | { ok: true; text: string; pages: number; pagesRead: number }
  | { ok: false; reason: 'not-pdf' | 'unreadable' | 'too-slow' };

/** The worker's code, plain CommonJS so that it runs the same under tsx, vitest and compiled JS. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { getDocumentProxy } = require(workerData.unpdf);
(async () => {
  const pdf = await getDocumentProxy(new Uint8Array(workerData.bytes), { isEvalSupported: false, stopAtErrors: false });
  const pages = pdf.numPages;
  const pagesRead = Math.min(pages, workerData.maxPages);
  const parts = [];
  let chars = 0;
  for (let n = 1; n <= pagesRead && chars < workerData.maxChars; n++) {
    const page = await pdf.getPage(n);
    const content = await page.getTextContent();
    const text = content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\\n' : '') : '')).join('');
    parts.push(text);
    chars += text.length;
    page.cleanup();
  }
  await pdf.destroy();
  parentPort.postMessage({ ok: true, text: parts.join('\\n\\n').slice(0, workerData.maxChars), pages, pagesRead });
})().catch(() => parentPort.postMessage({ ok: false, reason: 'unreadable' }));
`;

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

export function extractPdfText(bytes: Uint8Array, signal?: AbortSignal): Promise<PdfResult> {
  if (!looksLikePdf(bytes)) return Promise.resolve({ ok: false, reason: 'not-pdf' });
  return new Promise<PdfResult>((resolve) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { bytes, unpdf: unpdfPath(), maxPages: PDF_MAX_PAGES, maxChars: PDF_MAX_CHARS },
      resourceLimits: { maxOldGenerationSizeMb: PDF_WORKER_HEAP_MB },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const finish = (result: PdfResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      resolve(result);
    };
    const onAbort = () => finish({ ok: false, reason: 'too-slow' });
    const timer = setTimeout(() => finish({ ok: false, reason: 'too-slow' }), PDF_TIME_LIMIT_MS);
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: PdfResult) => finish(message));
    // Out of heap (a bomb) or a crash in the parser: the file is unreadable, the turn goes on.
    worker.on('error', () => finish({ ok: false, reason: 'unreadable' }));
    worker.on('exit', () => finish({ ok: false, reason: 'unreadable' }));
  });
}
