/**
 * A file on disk as fetch_url would receive it from a server (`--read`): the Content-Type a server
 * would send for its extension (or sniffed: a PDF by its signature, else the reader tells HTML from
 * text), the same size caps, and a file:// URL. That URL is the base of the page's links: relative
 * ones resolve to file:// addresses, which the reader leaves out as it leaves out every link that is
 * not http(s) (the model could not open them); absolute links and the page's own <base href> stay.
 */
import { open } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { looksLikePdf } from '../context/pdf-text.js';
import { bodyLimit, pdfTooBig } from '../tools/fetch-policy.js';
import type { ArrivedDocument } from '../tools/fetch-url-tool.js';

const TYPE_BY_EXTENSION: Record<string, string> = {
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xhtml': 'application/xhtml+xml',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.md': 'text/plain',
  '.json': 'application/json',
  '.xml': 'application/xml',
};

/** Where a PDF's signature must appear (pdf-text.ts looks as far). */
const SNIFF_BYTES = 1024;

/** A file that cannot be read; the message says why, on one line. */
export class LocalFileError extends Error {}

export async function readLocalDocument(path: string): Promise<ArrivedDocument> {
  const absolute = resolve(path);
  const handle = await open(absolute, 'r').catch((err: unknown) => {
    throw new LocalFileError(fileProblem(err));
  });
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new LocalFileError('it is a directory');
    if (!info.isFile()) throw new LocalFileError('not a regular file');
    let contentType = TYPE_BY_EXTENSION[extname(absolute).toLowerCase()];
    if (contentType === undefined) {
      const head = Buffer.alloc(Math.min(info.size, SNIFF_BYTES));
      await handle.read(head, 0, head.length, 0);
      // A server that sends no type gets its body sniffed by the reader; a PDF it recognizes too,
      // but only a PDF announced as one gets the PDF size cap, so name it here.
      contentType = looksLikePdf(head) ? 'application/pdf' : '';
    }
    const { isPdf, maxBytes } = bodyLimit(contentType);
    if (isPdf && info.size > maxBytes) throw pdfTooBig(maxBytes, info.size);
    // Never more than fetch_url would download: a page's first FETCH_MAX_BYTES.
    const body = Buffer.alloc(Math.min(info.size, maxBytes));
    let filled = 0;
    while (filled < body.length) {
      const { bytesRead } = await handle.read(body, filled, body.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return {
      body: body.subarray(0, filled),
      contentType,
      url: pathToFileURL(absolute),
      truncated: info.size > maxBytes,
    };
  } catch (err) {
    if (err instanceof LocalFileError) throw err;
    if ((err as { code?: string }).code) throw new LocalFileError(fileProblem(err));
    throw err;
  } finally {
    await handle.close();
  }
}

/** The system's reason in words, without the path (the caller names the file). */
function fileProblem(err: unknown): string {
  switch ((err as { code?: string }).code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}
