/**
 * The reader's worker pool as fetch_url uses it (through readForModel): a page that overruns its
 * time limit is refused and its worker replaced, so the next page still reads; a stopped turn stops
 * its page; several pages read at once come back each with its own text.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readForModel } from '../../src/reader/read-document.js';
import { ReaderPool, ReadTimeoutError } from '../../src/reader/reader-pool.js';

const pool = new ReaderPool(2);
afterAll(() => pool.close());

const page = (title: string, words: number) =>
  Buffer.from(
    `<html><head><title>${title}</title></head><body><article><h1>${title}</h1>${Array.from(
      { length: Math.ceil(words / 20) },
      (_, i) =>
        `<p>${title} paragraph ${i} says something about ${title} with enough words to be read as prose here.</p>`,
    ).join('')}</article></body></html>`,
  );
const input = (title: string, words = 400) => ({
  body: page(title, words),
  contentType: 'text/html',
  url: `https://example.test/${title}`,
});

describe('reader pool', () => {
  it('refuses a page past its time limit, then reads the next page with a fresh worker', async () => {
    await expect(
      readForModel(input('slowpoke', 40_000), { maxChars: 8_000, pool, limitMs: 1 }),
    ).rejects.toBeInstanceOf(ReadTimeoutError);
    const next = await readForModel(input('afterwards'), { maxChars: 8_000, pool });
    expect(next.title).toBe('afterwards');
    expect(next.selection.text).toContain('afterwards paragraph 3');
  });

  it('stops a page when the turn is stopped', async () => {
    const stop = new AbortController();
    const reading = readForModel(input('stopped', 40_000), { maxChars: 8_000, pool, signal: stop.signal });
    stop.abort(new Error('Stop pressed'));
    await expect(reading).rejects.toThrow('Stop pressed');
  });

  it('reads many pages at once, each with its own text', async () => {
    const titles = Array.from({ length: 8 }, (_, i) => `page${i}`);
    const results = await Promise.all(titles.map((t) => readForModel(input(t), { maxChars: 8_000, pool })));
    expect(results.map((r) => r.title)).toEqual(titles);
    for (const [i, r] of results.entries()) expect(r.selection.text).toContain(`page${i} paragraph 0`);
  });
});
