/**
 * Big ordinary pages are read in part: a page of several megabytes (past what the reader can build and
 * read within its limit) yields its first part and the model is told so, instead of a refusal. Much
 * text in ordinary markup is read as a page up to a million characters (headings and lists kept,
 * menus dropped); past the element caps the linear flat reader gives the first part. Hostile markup
 * goes the flat way too (hostile-reader.test.ts), and is never read as a page in part.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { isPathological, markupShape, readInPart } from '../../src/reader/markup-shape.js';
import { readForModel } from '../../src/reader/read-document.js';
import { ReaderPool } from '../../src/reader/reader-pool.js';
import { documentForModel } from '../../src/tools/fetch-url-tool.js';
import { HOSTILE_PAGES } from '../helpers/hostile-pages.js';

const pool = new ReaderPool(1);
afterAll(() => pool.close());

/** A report of `sections` sections, each a heading, a paragraph with a link and a short list. */
function report(sections: number, words = 1): string {
  const body = Array.from(
    { length: sections },
    (_, i) =>
      `<section><h2>Section ${i}</h2><p>Section ${i} of the harbour report counts moorings and ${'tides, '.repeat(words)}with a <a href="https://harbour.example/s/${i}">chart</a> of the quay.</p><ul><li>North pier ${i}</li><li>South pier ${i}</li></ul></section>`,
  ).join('\n');
  return `<!doctype html><html><head><title>Harbour report</title></head><body><nav><a href="/">Home</a> <a href="/about">About us</a></nav><main><article><h1>Harbour report</h1>${body}</article></main><footer>Imprint</footer></body></html>`;
}

describe('a big ordinary page', () => {
  it('of many elements (1 MB, 36k elements) yields its first part, read flat, and says so', async () => {
    const html = report(6_000);
    expect(markupShape(html).elements).toBeGreaterThan(30_000);
    const out = await documentForModel(
      {
        body: Buffer.from(html),
        contentType: 'text/html',
        url: new URL('https://harbour.example/report'),
        truncated: false,
      },
      {},
      { pool },
    );
    expect(out.isError, out.text).toBeUndefined();
    const [header] = out.text.split('\n\n');
    expect(header).toContain('The page is too big to read whole: this is its first part.');
    expect(out.text).toContain('Section 0 of the harbour report counts moorings');
    expect(out.text).not.toContain('Section 5999 ');
  });

  it('of much text (4 MB of paragraphs, few elements) yields its first part', async () => {
    const html = report(2_000, 300);
    const shape = markupShape(html);
    expect(shape.elements).toBeLessThan(20_000);
    expect(shape.textChars).toBeGreaterThan(4_000_000);
    const read = await readForModel(
      { body: Buffer.from(html), contentType: 'text/html', url: 'https://harbour.example/report' },
      { maxChars: 8_000, pool },
    );
    expect(read.cut).toBe(true);
    expect(read.method).toBe('article');
    expect(read.selection.text).toContain('Section 0 of the harbour report');
    expect(read.selection.text).not.toContain('Section 1999 ');
  });

  it('of ordinary size is read whole, not in part', async () => {
    const read = await readForModel(
      { body: Buffer.from(report(300)), contentType: 'text/html', url: 'https://harbour.example/report' },
      { maxChars: Number.POSITIVE_INFINITY, pool },
    );
    expect(read.cut).toBeUndefined();
    expect(read.selection.text).toContain('Section 299 of the harbour report');
  });

  it('hostile markup and pages past the element caps are never read in part as a page', () => {
    expect(readInPart(markupShape(report(6_000)))).toBeUndefined();
    for (const [name, page] of Object.entries(HOSTILE_PAGES))
      expect(readInPart(markupShape(page)), name).toBeUndefined();
    expect(readInPart(markupShape('<div>'.repeat(100_000)))).toBeUndefined();
  });

  it("counts the text's character references as text runs, not the `&`s of links and scripts", () => {
    // 45,000 references in the text: as many text nodes for linkedom to build, past the cap.
    const references = `<html><body><p>${'a &amp; '.repeat(45_000)}</p></body></html>`;
    expect(markupShape(references).textRuns).toBeGreaterThanOrEqual(45_000);
    expect(isPathological(markupShape(references))).toBe(true);
    // As many `&`s in link targets and a script: one text run each, an ordinary page.
    const links = Array.from({ length: 15_000 }, (_, i) => `<a href="?a=${i}&amp;b=1&amp;c=2">l</a>`);
    const script = `<script>${'if (a && b) x();'.repeat(5_000)}</script>`;
    const ordinary = markupShape(`<html><body><p>${links.join('')}</p>${script}</body></html>`);
    expect(ordinary.textRuns).toBeLessThan(15_010);
    expect(isPathological(ordinary)).toBe(false);
  });
});
