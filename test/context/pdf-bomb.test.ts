/**
 * Issue 27 §6: PDF reading must cost bounded memory, whatever the file. A 1 MB bomb whose content
 * stream inflates to 1 GB took the process past 1 GB (pdf.js's buffers escaped the worker's heap
 * limit); two at once 2.6 GB. Driven through the public API the attachment reader and fetch_url
 * call, with real PDFs generated here; memory is what the whole of Scout holds (this process and
 * its children, from /proc).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gatherContext } from '../../src/context/gather-context.js';
import {
  describePdfFailure,
  extractPdfText,
  PDF_MAX_BYTES,
  pdfFailureNotice,
} from '../../src/context/pdf-text.js';
import { say } from '../../src/i18n/say.js';
import { silentLogger } from '../../src/logger.js';
import type { TurnEvent } from '../../src/render/events.js';
import { canMeasureTree, peakTreeRss, treeRss } from '../helpers/tree-memory.js';
import { makeEncryptedPdf, makeGigabytePdfBomb, makePdf } from './context-kit.js';

const MB = 1024 * 1024;

describe('PDF bombs', { timeout: 60_000 }, () => {
  it('two 1 GB bombs at once: both refused for memory, Scout and its readers stay under 300 MB above idle', async () => {
    const bomb = makeGigabytePdfBomb();
    expect(bomb.byteLength).toBeLessThan(1.1 * MB);
    // Warm: the first reading loads what every later one shares (not the bomb's cost).
    expect(await extractPdfText(makePdf('warm up'))).toMatchObject({ ok: true, text: 'warm up' });
    if (!canMeasureTree) console.warn('no /proc here: memory of the PDF readers is not measured');
    const idle = treeRss();
    const { result, peak } = await peakTreeRss(() =>
      Promise.all([extractPdfText(bomb), extractPdfText(bomb)]),
    );
    expect(result).toEqual([
      { ok: false, reason: 'too-much-memory' },
      { ok: false, reason: 'too-much-memory' },
    ]);
    if (canMeasureTree) expect((peak - idle) / MB).toBeLessThan(300);
    // And reading goes on: an ordinary PDF right after is read in full.
    expect(await extractPdfText(makePdf('Quarterly revenue was 42 million'))).toMatchObject({
      ok: true,
      text: 'Quarterly revenue was 42 million',
    });
  });

  it('the user is told which file was skipped and why, in their language', async () => {
    const events: TurnEvent[] = [];
    const bomb = makeGigabytePdfBomb();
    const encrypted = makeEncryptedPdf();
    const files = { 'bomb.pdf': bomb, 'locked.pdf': encrypted } as Record<string, Buffer>;
    const gathered = await gatherContext({
      source: {
        messageId: '1',
        attachments: Object.entries(files).map(([name, bytes], i) => ({
          id: `F${i}`,
          name,
          mimeType: 'application/pdf',
          size: bytes.byteLength,
        })),
        download: async (file) => ({ ok: true, bytes: files[file.name]! }),
      },
      readThread: false,
      budgetTokens: 16_000,
      maxImages: 4,
      maxFileBytes: 20 * MB,
      vision: false,
      imageLimits: { maxEdge: 2048, maxBytes: 4_000_000 },
      locale: 'zh',
      emit: (event) => events.push(event),
      signal: new AbortController().signal,
      logger: silentLogger,
    });
    const shown = events
      .map((e) => ('title' in e && e.title !== undefined ? say('zh', e.title) : ''))
      .join('\n');
    expect(shown).toContain('已跳过 bomb.pdf：读取它所需的内存超出了 PDF 的上限');
    expect(shown).toContain('已跳过 locked.pdf：它受密码保护');
    expect(gathered.text).not.toContain('secret plans');
  });
});

describe('PDFs Scout does not read', () => {
  it('a password-protected PDF is reported as encrypted', async () => {
    expect(await extractPdfText(makeEncryptedPdf())).toEqual({ ok: false, reason: 'encrypted' });
    // The user's notice and the model's line (fetch_url) say the same in English.
    for (const said of [
      say('en', pdfFailureNotice('encrypted', 'locked.pdf')),
      describePdfFailure('encrypted', 'locked.pdf'),
    ])
      expect(said).toBe('Skipped locked.pdf: it is password-protected, so its text cannot be read.');
  });

  it('a 50 MB PDF is refused by its size, with a notice naming the limit', async () => {
    const big = makePdf('big', { image: Buffer.alloc(50 * MB, 0x5a) });
    expect(big.byteLength).toBeGreaterThan(PDF_MAX_BYTES);
    expect(await extractPdfText(big)).toEqual({ ok: false, reason: 'too-big' });
    for (const said of [
      say('en', pdfFailureNotice('too-big', 'scan.pdf')),
      describePdfFailure('too-big', 'scan.pdf'),
    ])
      expect(said).toBe('Skipped scan.pdf: PDFs larger than 32 MB are not read.');
  });

  it('a reading waiting for a free reader gives up when the turn is cancelled', async () => {
    const bomb = makeGigabytePdfBomb();
    const busy = [extractPdfText(bomb), extractPdfText(bomb)];
    const controller = new AbortController();
    const waiting = extractPdfText(makePdf('later'), controller.signal);
    controller.abort();
    expect(await waiting).toEqual({ ok: false, reason: 'too-slow' });
    await Promise.all(busy);
  }, 60_000);
});

describe('PDF reading from a bundle', () => {
  const root = join(import.meta.dirname, '../..');
  const out = join(root, 'dist', `.pdf-bundle-test-${process.pid}`);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('works when pdf-text.ts is bundled into a chunk, as dist/scout/ is built', async () => {
    const esbuild = await import('esbuild');
    mkdirSync(out, { recursive: true });
    writeFileSync(
      join(out, 'entry.ts'),
      `const { extractPdfText } = await import(${JSON.stringify(join(root, 'src/context/pdf-text.ts'))});
       const pdf = Buffer.from(process.argv[2], 'base64');
       process.stdout.write(JSON.stringify(await extractPdfText(pdf)));`,
    );
    // As scripts/build.mjs: ESM, split into chunks one folder down, packages (unpdf) left external.
    await esbuild.build({
      entryPoints: { main: join(out, 'entry.ts') },
      outdir: out,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      chunkNames: 'chunks/[name]-[hash]',
      packages: 'external',
      logLevel: 'silent',
    });
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [join(out, 'main.js'), makePdf('Read from the bundle').toString('base64')],
        { cwd: out, env: { PATH: process.env.PATH ?? '' }, timeout: 30_000 },
        (error, output) => (error ? reject(error) : resolve(output)),
      ),
    );
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, text: 'Read from the bundle' });
  }, 60_000);
});
