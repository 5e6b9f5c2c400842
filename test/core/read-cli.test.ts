/**
 * `npm start -- --read …` as an operator runs it (the real entry point in its own process, with no
 * model key or platform token in its environment): pages from the corpus print as fetch_url hands
 * them to the model, with `==>` headers when there are several; a focus brings a passage from the end
 * of a long article; a loopback URL is refused by fetch_url's address guard; and a local file reads
 * exactly as the same bytes served over HTTP read through the fetch_url tool.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { FETCH_MAX_CHARS } from '../../src/tools/fetch-policy.js';
import { createFetchUrlTool } from '../../src/tools/fetch-url-tool.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import type { Tool } from '../../src/tools/types.js';
import { loadManifest, PAGES_DIR } from '../reader/page-fixtures.js';
import { runMain } from '../helpers/run-main.js';

const page = (file: string) => join(PAGES_DIR, file);
const LONG = 'long-cable-ships.html';
const lastThird = loadManifest().find((entry) => entry.file === LONG)?.lastThirdSentence as string;

/** A local HTTP server that counts what it is asked for (the guard must refuse before connecting). */
let server: Server;
let base: string;
const hits: string[] = [];
const served = new Map<string, { type: string; body: Buffer }>();
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'scout-read-'));
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const doc = served.get(req.url ?? '');
    res.writeHead(doc ? 200 : 404, doc ? { 'content-type': doc.type } : {});
    res.end(doc?.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('npm start -- --read', { timeout: 60_000 }, () => {
  it('prints each page under a ==> header, names a missing file and a refused URL on stderr, exits 1', async () => {
    served.set('/secret', { type: 'text/html', body: Buffer.from('<title>Intranet</title><p>secret</p>') });
    const result = await runMain(
      [
        '--read',
        page('product-kettle.html'),
        'no-such-page.html',
        `${base}/secret`,
        page('working-paper-free-buses.pdf'),
        page(LONG),
      ],
      {},
    );
    expect(result.code).toBe(1);
    // One line per document that could not be read, each naming it and why.
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'Could not read no-such-page.html: no such file',
      `Could not fetch ${base}/secret: 127.0.0.1 resolves to 127.0.0.1, a private, loopback or otherwise non-public address`,
    ]);
    expect(hits).not.toContain('/secret');
    expect(result.stdout).not.toContain('secret');

    const sections = result.stdout.split(/^==> (.*) <==\n/m);
    expect(sections[0]).toBe('');
    const names = sections.filter((_, i) => i % 2 === 1);
    expect(names).toEqual([page('product-kettle.html'), page('working-paper-free-buses.pdf'), page(LONG)]);
    const [kettle, pdf, long] = sections.filter((_, i) => i > 0 && i % 2 === 0) as [string, string, string];
    // fetch_url's header, then the reader's Markdown; a blank line before the next header.
    expect(kettle).toMatch(/^Pourover Gooseneck Electric Kettle, 0\.9 L · Brewline Goods[^\n]*\n\n/);
    expect(kettle).toContain('| Capacity | 0.9 L |');
    expect(kettle.endsWith('\n\n')).toBe(true);
    expect(pdf).toMatch(/^Free Buses and Town-Centre Footfall/);
    // Without a focus a long article is read from its start, in fetch_url's budget: the last third
    // is not there, and the header says how to read on.
    expect(long).toMatch(/^The Ships That Fix the Internet( · [^\n]*)?\n/);
    expect(long).toMatch(/\nPart 1 of \d+\. part=2 reads on\./);
    expect(long).not.toContain(lastThird);
    const text = long.slice(long.indexOf('\n\n') + 2).trimEnd();
    expect(text.length).toBeLessThanOrEqual(FETCH_MAX_CHARS);
  });

  it('--focus brings a sentence from the last third of a long article; --part reads on in order', async () => {
    const focused = await runMain(['--read', page(LONG), '--focus', lastThird], {});
    expect(focused.stderr).toBe('');
    expect(focused.code).toBe(0);
    // One document: no ==> header, fetch_url's text as it is.
    expect(focused.stdout).toMatch(/^The Ships That Fix the Internet( · [^\n]*)?\n/);
    expect(focused.stdout).toContain('Passages most relevant to the focus,');
    expect(focused.stdout.replace(/\s+/g, ' ')).toContain(lastThird);
    expect(focused.stdout).toMatch(/\[… \d+ paragraphs? skipped …\]/);

    const second = await runMain(['--read', '--part', '2', page(LONG)], {});
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/\nPart 2 of \d+\. part=3 reads on\./);
  });

  it('reads a local file exactly as fetch_url reads the same bytes from a server', async () => {
    // A long article whose links are absolute (a file's relative links have no web address).
    const paragraphs = Array.from(
      { length: 120 },
      (_, i) =>
        `<p>Paragraph ${i + 1} of the harbour survey counts ${i * 7 + 3} moorings along the <a href="https://harbour.test/quay/${i}">quay ${i}</a> and notes the tide.</p>`,
    );
    paragraphs[97] =
      '<p>The lighthouse keeper logged a seiche of 41 centimetres on the night of the storm.</p>';
    const html = `<!doctype html><html><head><title>Harbour survey</title><meta property="og:site_name" content="Harbour Notes"></head><body><nav><a href="https://harbour.test/">Home</a></nav><article><h1>Harbour survey</h1>${paragraphs.join('')}</article><footer>© Harbour Notes</footer></body></html>`;
    const file = join(dir, 'survey.html');
    writeFileSync(file, html);
    served.set('/survey', { type: 'text/html; charset=utf-8', body: Buffer.from(html) });
    const focus = 'seiche measured by the lighthouse keeper';

    const cli = await runMain(['--read', file, '--focus', focus], {});
    expect(cli.code).toBe(0);
    const tool = createToolRegistry(
      [createFetchUrlTool({ policy: 'open', isAllowedAddress: (a) => a === '127.0.0.1' }) as Tool],
      { logger: silentLogger },
    );
    const fetched = await tool.execute('fetch_url', JSON.stringify({ url: `${base}/survey`, focus }), {
      sessionKey: 's',
      signal: new AbortController().signal,
    });
    expect(fetched.isError).toBeUndefined();
    // Longer than the budget: both chose passages by the focus, and found the same ones.
    expect(fetched.text).toContain('Passages most relevant to the focus');
    expect(fetched.text).toContain('41 centimetres');
    // The same text, header and links included.
    expect(cli.stdout.trimEnd()).toBe(fetched.text.trimEnd());
    expect(cli.stdout).toMatch(/\n\[L1\]: https:\/\/harbour\.test\/quay\/\d+ "quay \d+"\n/);
  });

  it('needs --read for files, focus and part, and refuses a focus fetch_url would refuse', async () => {
    const stray = await runMain([page('product-kettle.html')], {});
    expect(stray.code).toBe(1);
    expect(stray.stderr).toContain("Unexpected argument '");
    expect(stray.stderr).toContain('files and URLs go after --read');
    const long = await runMain(['--read', page('product-kettle.html'), '--focus', 'x'.repeat(501)], {});
    expect(long.code).toBe(1);
    expect(long.stderr).toBe("--focus is longer than 500 characters (fetch_url's limit) (see --help)\n");
    expect(long.stdout).toBe('');
  });

  it('is in --help', async () => {
    const help = await runMain(['--help'], {});
    expect(help.stdout).toMatch(/--read FILE\|URL…/);
    expect(help.stdout).toContain('--focus');
  });
});
