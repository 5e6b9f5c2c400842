/**
 * Scout's page reader on the hand-written corpus in test/fixtures/pages/, scored like the field scores
 * article extractors (shingle-f1.ts): each page is read exactly as fetch_url's callers read it (raw
 * bytes, the Content-Type a server would send, the page's URL), its Markdown is reduced to plain
 * words, and the corpus must reach F1 0.95. On failure the message lists every page's precision,
 * recall and F1, worst first, so the page that leaks boilerplate or loses text is named.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readDocument } from '../../src/reader/read-document.js';
import { expectedText, loadManifest, type PageEntry, pageBytes, SCRIPT_CANARY } from './page-fixtures.js';
import { corpusScore, markdownToPlain, type PageCounts, type PageScore, scorePage } from './shingle-f1.js';

type ReadResult = Awaited<ReturnType<typeof readDocument>>;

const pages = loadManifest();
const results = new Map<string, ReadResult>();
const F1_FLOOR = 0.95;

beforeAll(async () => {
  for (const page of pages) {
    results.set(
      page.name,
      await readDocument({ body: pageBytes(page), contentType: page.contentType, url: page.url }),
    );
  }
}, 120_000);

function result(page: PageEntry): ReadResult {
  const read = results.get(page.name);
  if (read === undefined) throw new Error(`${page.name} was not read`);
  return read;
}

function table(rows: Array<{ name: string } & PageScore>): string {
  const fmt = (n: number) => n.toFixed(3);
  return rows
    .map((r) => `${r.name.padEnd(28)} P ${fmt(r.precision)}  R ${fmt(r.recall)}  F1 ${fmt(r.f1)}`)
    .join('\n');
}

/** Whitespace collapsed, Unicode composed: the same title typed or encoded differently compares equal. */
function norm(text: string | undefined): string {
  return (text ?? '').normalize('NFC').replace(/\s+/g, ' ').trim();
}

describe('page reader on the corpus', () => {
  it(`reaches shingle F1 ${F1_FLOOR} over all pages`, () => {
    const rows = pages.map((page) => ({
      name: page.name,
      ...scorePage(expectedText(page), markdownToPlain(result(page).markdown)),
    }));
    const score = corpusScore(rows satisfies PageCounts[]);
    rows.sort((a, b) => a.f1 - b.f1);
    const report =
      `corpus F1 ${score.f1.toFixed(3)} (precision ${score.precision.toFixed(3)}, recall ${score.recall.toFixed(3)})` +
      `, worst first:\n${table(rows)}`;
    expect(score.f1, report).toBeGreaterThanOrEqual(F1_FLOOR);
  });

  for (const page of pages) {
    describe(page.name, () => {
      it('says what kind of document it read', () => {
        const kind = page.contentType.toLowerCase().startsWith('application/pdf') ? 'pdf' : 'html';
        expect(result(page).kind).toBe(kind);
      });

      it('never shows script content', () => {
        expect(result(page).markdown.toLowerCase()).not.toContain(SCRIPT_CANARY);
      });

      it('finds the title', () => {
        const titles = [page.title, ...(page.titleAlternatives ?? [])].map(norm);
        expect(titles).toContain(norm(result(page).title));
      });

      if (page.site !== undefined) {
        it('finds the site name', () => {
          expect(norm(result(page).site)).toBe(norm(page.site));
        });
      }

      if (page.byline !== undefined) {
        it('finds the byline', () => {
          // Every author named, in whatever form the reader joins them ("A and B", "A, B").
          for (const name of page.byline!.split(/,\s*|\s+and\s+/))
            expect(norm(result(page).byline).toLowerCase()).toContain(norm(name).toLowerCase());
        });
      }

      if (page.published !== undefined) {
        it('finds the publication date', () => {
          const published = result(page).published;
          expect(published, 'published').toBeDefined();
          const sameInstant = Date.parse(published!) === Date.parse(page.published!);
          // A date without its time is right too, if it is the date the page shows.
          const sameDay = published!.slice(0, 10) === page.published!.slice(0, 10);
          expect(sameInstant || sameDay, `published ${published}, page says ${page.published}`).toBe(true);
        });
      }

      if (page.nonAsciiPhrase !== undefined) {
        it(`decodes ${page.charset} text intact`, () => {
          expect(result(page).markdown.normalize('NFC')).toContain(page.nonAsciiPhrase!.normalize('NFC'));
        });
      }

      if (page.lastThirdSentence !== undefined) {
        it('keeps the last third of a long article', () => {
          const plain = markdownToPlain(result(page).markdown).replace(/\s+/g, ' ');
          expect(plain).toContain(page.lastThirdSentence!.replace(/\s+/g, ' '));
        });
      }
    });
  }
});
