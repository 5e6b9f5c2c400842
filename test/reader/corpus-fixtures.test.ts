/**
 * The page corpus checks itself, without any reader: every page is where the manifest says, is the
 * size of a real page, plants a script canary that only a script holds, really is in the encoding it
 * claims, and its expected text is words the page actually carries (a typo in an expected file would
 * otherwise count against every reader). The reader's score is in corpus.test.ts.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodePage,
  expectedText,
  loadManifest,
  PAGES_DIR,
  pageBytes,
  SCRIPT_CANARY,
} from './page-fixtures.js';
import { pageTextParts } from './page-text.js';
import { tokenize } from './shingle-f1.js';

const pages = loadManifest();
const isPdf = (contentType: string) => contentType.toLowerCase().startsWith('application/pdf');

/**
 * Share of the expected text's within-line word n-grams (up to 4) that occur in the page's text. Not
 * all: a citation marker or footnote number inside a sentence (`summer.[3] The`) is rightly left out
 * of the expected text but splits the page's word sequence.
 */
function coverage(expected: string, pageText: string): { share: number; missing: string[] } {
  const pageTokens = tokenize(pageText);
  const grams = new Set<string>();
  for (let n = 1; n <= 4; n++)
    for (let i = 0; i + n <= pageTokens.length; i++) grams.add(pageTokens.slice(i, i + n).join(' '));
  let total = 0;
  const missing: string[] = [];
  for (const line of expected.split('\n')) {
    const tokens = tokenize(line);
    if (tokens.length === 0) continue;
    const n = Math.min(4, tokens.length);
    for (let i = 0; i + n <= tokens.length; i++) {
      total++;
      const gram = tokens.slice(i, i + n).join(' ');
      if (!grams.has(gram)) missing.push(gram);
    }
  }
  return { share: total === 0 ? 0 : 1 - missing.length / total, missing };
}

describe('page corpus (test/fixtures/pages)', () => {
  it('has at least 32 HTML pages and a PDF, with unique names', () => {
    expect(pages.filter((p) => !isPdf(p.contentType)).length).toBeGreaterThanOrEqual(32);
    expect(pages.some((p) => isPdf(p.contentType))).toBe(true);
    expect(new Set(pages.map((p) => p.name)).size).toBe(pages.length);
  });

  for (const page of pages) {
    describe(page.name, () => {
      it('has its file, a realistic size and a non-empty expected text', () => {
        expect(existsSync(path.join(PAGES_DIR, page.file))).toBe(true);
        const size = statSync(path.join(PAGES_DIR, page.file)).size;
        if (!isPdf(page.contentType)) {
          expect(size).toBeGreaterThanOrEqual(10 * 1024);
          expect(size).toBeLessThanOrEqual(150 * 1024);
        }
        expect(tokenize(expectedText(page)).length).toBeGreaterThan(50);
        expect(page.url).toMatch(/^https:\/\/[a-z0-9.-]+\.test\//);
        if (page.published !== undefined) expect(Number.isNaN(Date.parse(page.published))).toBe(false);
      });

      if (isPdf(page.contentType)) return;

      const bytes = pageBytes(page);
      const html = decodePage(page, bytes);
      const parts = pageTextParts(html);

      it('plants the script canary in a script, and nowhere a reader may show', () => {
        expect(parts.scripts.some((s) => s.toLowerCase().includes(SCRIPT_CANARY))).toBe(true);
        expect(parts.text.toLowerCase()).not.toContain(SCRIPT_CANARY);
      });

      it('expects only words the page carries', () => {
        const { share, missing } = coverage(expectedText(page), parts.text);
        expect(share, `not in the page: ${missing.slice(0, 20).join(' | ')}`).toBeGreaterThanOrEqual(0.98);
      });

      if (page.charset !== undefined) {
        it(`really is ${page.charset}, not UTF-8, and carries its non-ASCII phrase`, () => {
          expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
          expect(page.nonAsciiPhrase).toMatch(/[^\x00-\x7f]/);
          expect(html).toContain(page.nonAsciiPhrase);
          expect(expectedText(page)).toContain(page.nonAsciiPhrase);
        });
      }

      if (page.lastThirdSentence !== undefined) {
        it('is long, and its focus sentence sits in the last third of the article', () => {
          const expected = expectedText(page);
          expect(tokenize(expected).length).toBeGreaterThanOrEqual(6000);
          const at = expected.indexOf(page.lastThirdSentence!);
          expect(at).toBeGreaterThan((expected.length * 2) / 3);
          expect(expected.indexOf(page.lastThirdSentence!, at + 1)).toBe(-1);
        });
      }
    });
  }
});
