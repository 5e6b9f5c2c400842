/**
 * Deeply nested pages: a page of divs nested as deep as the reader builds a DOM for is read as a
 * page in time, not refused as too complex; deeper ones are read flat. Readability measured the text
 * of every div under each div it judged (n³ on a page nested n deep: 15 s of CPU for 1,000 divs).
 */
import { describe, expect, it } from 'vitest';
import { extractArticle } from '../../src/reader/extract-article.js';
import {
  isPathological,
  MAX_OPEN_ELEMENTS,
  markupShape,
  withinCapsByCount,
} from '../../src/reader/markup-shape.js';
import { runReadJob } from '../../src/reader/read-job.js';

// A few words a level, no commas: Readability judges a div with ten commas or more without measuring it.
const step = (i: number) => `Step ${i} `;
const page = (body: string) => `<html><head><title>Cellar</title></head><body>${body}</body></html>`;

describe('a deeply nested page', () => {
  it('divs as deep as the reader builds a DOM for, each with text: read whole, in little more CPU time than the same divs side by side', () => {
    // <html> and <body> are open around them.
    const n = MAX_OPEN_ELEMENTS - 2;
    const levels = Array.from({ length: n }, (_, i) => `<div>${step(i)}`);
    // CPU time, not the wall clock: a busy machine does not make either reading look slower.
    const timed = (html: string) => {
      const started = process.cpuUsage();
      const result = extractArticle(html, 'https://cellar.example/deep');
      const used = process.cpuUsage(started);
      return { text: result.blocks.join('\n'), ms: (used.user + used.system) / 1e3 };
    };
    // The same divs and text, none inside another, read in this test: the baseline on this machine now.
    const flat = timed(page(levels.map((level) => `${level}</div>`).join('')));
    const html = page(`${levels.join('')}${'</div>'.repeat(n)}`);
    expect(isPathological(markupShape(html))).toBe(false);
    const deep = timed(html);
    for (const i of [0, 500, n - 1]) expect(deep.text).toContain(step(i).trim());
    // Before: 15 s (n³); now n² steps of Readability's own walks, about a second at most.
    expect(deep.ms).toBeLessThan(flat.ms * 10 + 2_000);
  });

  it('deeper than the reader builds a DOM for: read flat, its text whole', async () => {
    const n = MAX_OPEN_ELEMENTS + 200;
    const html = page(
      `${Array.from({ length: n }, (_, i) => `<div>${step(i)}`).join('')}${'</div>'.repeat(n)}`,
    );
    expect(isPathological(markupShape(html))).toBe(true);
    // Few enough '<' and '&' to skip the tokenizer's pass: the depth is measured on the tree.
    expect(withinCapsByCount(html)).toBe(true);
    const read = await runReadJob({
      kind: 'document',
      type: 'html',
      body: Buffer.from(html),
      contentType: 'text/html; charset=utf-8',
      url: 'https://cellar.example/deeper',
      maxChars: Infinity,
    });
    expect(read.method).toBe('flat');
    for (const i of [0, 600, n - 1]) expect(read.selection.text).toContain(step(i).trim());
  });

  it("the characters' count skips the tokenizer's pass only where it proves the caps: never for a page of '<' or of entities", () => {
    expect(withinCapsByCount(page('<p>Ordinary &amp; short.</p>'.repeat(100)))).toBe(true);
    expect(withinCapsByCount('<'.repeat(512 * 1024))).toBe(false);
    expect(withinCapsByCount(page('&amp;'.repeat(100_000)))).toBe(false);
    expect(withinCapsByCount(page('x'.repeat(1_000_001)))).toBe(false);
  });
});
