/**
 * Scenario 10: context assembly (src/context) — a mention at the end of a 500-message thread, and a
 * 10 MB PDF attached. Measures the wall time of the whole assembly (selection within the token
 * budget, delimiting; PDF text extraction in its reader process) and the longest event-loop stall
 * meanwhile. Then two 1 GB PDF bombs (1 MB files) read at once: the peak resident memory of Scout and
 * its reader processes above idle (issue 27 §6: it was 2.6 GB).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gatherContext } from '../../src/context/gather-context.js';
import type { MessageContextSource, ThreadMessage } from '../../src/context/types.js';
import { silentLogger } from '../../src/logger.js';
import { extractPdfText } from '../../src/context/pdf-text.js';
import { makeGigabytePdfBomb, makePdf } from '../../test/context/context-kit.js';
import { canMeasureTree, peakTreeRss, treeRss } from '../../test/helpers/tree-memory.js';
import type { BenchContext, ScenarioResult } from '../context.js';
import { summarize } from '../metrics.js';

const THREAD_MESSAGES = 500;
const PDF_BYTES = 10 * 1024 * 1024;

function thread(): ThreadMessage[] {
  return Array.from({ length: THREAD_MESSAGES }, (_, i) => ({
    id: String(THREAD_MESSAGES - i),
    author: `Person ${i % 12}`,
    text: `Message ${i}: the deploy of service ${i % 7} failed with ECONNRESET after ${i}s; retrying with backoff.`,
    bot: i % 25 === 0,
  }));
}

/** A 10 MB PDF as most are: a page of text and an embedded image making up the bulk. */
function imagePdf(): Buffer {
  return makePdf('Quarterly report: revenue 42 million, costs 31 million', {
    image: Buffer.alloc(PDF_BYTES, 0x5a),
  });
}

/** The worst case: one page whose content stream is ~10 MB of text operators. */
function textPdf(): Buffer {
  const line = (i: number) =>
    `BT /F1 9 Tf 40 ${700 - (i % 60) * 11} Td (Line ${i} of the quarterly report, revenue and costs) Tj ET\n`;
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < PDF_BYTES; i++) {
    const l = line(i);
    lines.push(l);
    size += l.length;
  }
  return makePdf('', { content: Buffer.from(lines.join(''), 'latin1') });
}

function source(earlier: ThreadMessage[], pdf?: Buffer): MessageContextSource {
  return {
    messageId: '999999',
    attachments: pdf
      ? [{ id: 'F1', name: 'report.pdf', mimeType: 'application/pdf', size: pdf.byteLength }]
      : [],
    earlier: async () => earlier,
    download: async () => (pdf ? { ok: true, bytes: pdf } : { ok: false, reason: 'failed' }),
  };
}

async function assemble(src: MessageContextSource): Promise<number> {
  const started = performance.now();
  await gatherContext({
    source: src,
    readThread: true,
    budgetTokens: 16_000,
    maxImages: 4,
    maxFileBytes: 20 * 1024 * 1024,
    vision: false,
    imageLimits: { maxEdge: 2048, maxBytes: 4_000_000 },
    locale: 'en',
    emit: () => {},
    signal: new AbortController().signal,
    logger: silentLogger,
  });
  return performance.now() - started;
}

/** Peak memory of this process and its children while two bombs are read; undefined without /proc. */
async function twoBombs(): Promise<{ aboveIdleMb: number; ms: number; reasons: string[] } | undefined> {
  if (!canMeasureTree) return undefined;
  const bomb = makeGigabytePdfBomb();
  await extractPdfText(makePdf('warm up'));
  const idle = treeRss();
  const started = performance.now();
  const { result, peak } = await peakTreeRss(() => Promise.all([extractPdfText(bomb), extractPdfText(bomb)]));
  return {
    aboveIdleMb: (peak - idle) / 1024 / 1024,
    ms: performance.now() - started,
    reasons: result.map((r) => (r.ok ? 'read' : r.reason)),
  };
}

export async function contextAssembly(ctx: BenchContext): Promise<ScenarioResult> {
  const runs = ctx.options.contextRuns;
  const messages = thread();
  ctx.log(`scenario 10: ${THREAD_MESSAGES}-message thread and two 10 MB PDFs × ${runs}`);
  await assemble(source(messages)); // JIT and tokenizer warm-up
  const cases: Array<[string, MessageContextSource]> = [
    [`${THREAD_MESSAGES}-message thread`, source(messages)],
    ['10 MB PDF (text and an image)', source([], imagePdf())],
    ['10 MB PDF (one page of text operators; capped at 15 s)', source([], textPdf())],
  ];
  const rows: Array<[string, string]> = [];
  const data: Record<string, unknown> = {};
  let worstStall = 0;
  for (const [name, src] of cases) {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push(await assemble(src));
    delay.disable();
    const ms = summarize(times);
    const stallMs = delay.max / 1e6;
    worstStall = Math.max(worstStall, stallMs);
    rows.push([
      name,
      `${ms.p50.toFixed(0)} ms p50 (max ${ms.max.toFixed(0)}) · longest event-loop stall ${stallMs.toFixed(1)} ms`,
    ]);
    data[name] = { ms, stallMs };
  }
  const bombs = await twoBombs();
  if (bombs) {
    rows.push([
      'two 1 GB PDF bombs at once (1 MB files)',
      `peak ${bombs.aboveIdleMb.toFixed(0)} MB above idle (Scout + readers) · ${bombs.ms.toFixed(0)} ms · ${bombs.reasons.join(', ')}`,
    ]);
    data['two PDF bombs'] = bombs;
  }
  return {
    id: 10,
    name: `Context assembly (${runs} runs each)`,
    rows,
    targets: [
      ...(bombs
        ? [
            {
              target: 'Two PDF bombs at once stay under 300 MB above idle',
              measured: `${bombs.aboveIdleMb.toFixed(0)} MB`,
              met: bombs.aboveIdleMb < 300,
            },
          ]
        : []),
      {
        target: 'Reading a PDF never blocks the event loop > 100 ms at a time',
        measured: `longest stall ${worstStall.toFixed(1)} ms`,
        met: worstStall < 100,
      },
    ],
    data,
  };
}
