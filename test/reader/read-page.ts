/**
 * Reads a hand-written page as fetch_url would (one reader worker, a German address), for the tests
 * of how the reader chooses a page's text; the file's afterAll closes the worker.
 */
import { afterAll } from 'vitest';
import { readDocument } from '../../src/reader/read-document.js';
import { ReaderPool } from '../../src/reader/reader-pool.js';

export function pageReader(): (html: string) => ReturnType<typeof readDocument> {
  const pool = new ReaderPool(1);
  afterAll(() => pool.close());
  return (html) =>
    readDocument(
      {
        body: Buffer.from(html),
        contentType: 'text/html; charset=utf-8',
        url: 'https://seite.example/beitrag',
      },
      { pool },
    );
}
