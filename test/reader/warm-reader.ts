/**
 * Starts the process's page-reader worker (the pool fetch_url reads with) before a test measures or
 * calls anything. Under tests the worker compiles the reader with tsx first, which on a busy 2-core
 * machine can take longer than fetch_url's own 10 s limit; a first page's time would be the boot's.
 */
import { readForModel } from '../../src/reader/read-document.js';

export async function warmReader(): Promise<void> {
  const read = await readForModel(
    {
      body: Buffer.from('<title>Warm</title><p>Warming the reader up.</p>'),
      contentType: 'text/html',
      url: 'http://warm.invalid/',
    },
    { maxChars: 8_000 },
  );
  if (!read.selection.text.includes('Warming the reader up.'))
    throw new Error('the page reader did not start');
}
