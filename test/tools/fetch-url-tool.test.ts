import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { warmReader } from '../reader/warm-reader.js';
import { silentLogger } from '../../src/logger.js';
import { readForModel } from '../../src/reader/read-document.js';
import type { ReadJob } from '../../src/reader/read-job.js';
import { ReaderPool } from '../../src/reader/reader-pool.js';
import type { FetchUrlOptions } from '../../src/tools/fetch-policy.js';
import { createFetchUrlTool } from '../../src/tools/fetch-url-tool.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { isBlockedAddress } from '../../src/tools/ssrf-guard.js';
import type { Tool, ToolContext } from '../../src/tools/types.js';
import { HOSTILE_PAGES } from '../helpers/hostile-pages.js';

const context = (): ToolContext => ({ sessionKey: 's', signal: new AbortController().signal });

let server: Server;
let base: string;
const hits: string[] = [];
beforeAll(async () => {
  // The reader's worker starts before the first fetch (under tsx on a busy machine its start can
  // take a good part of fetch_url's 10 s).
  await warmReader();
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/never') return; // never answers
    if (req.url === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<html><head><title>Hello &amp; welcome</title><style>body{color:red}</style></head>' +
          '<body><script>alert("x")</script><h1>Heading</h1><p>First   paragraph.</p><p>Second <b>bold</b>.</p></body></html>',
      );
    } else if (req.url === '/big-news') {
      // As big news sites send it: most of a megabyte of inline script before the article.
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<html><head><title>Harbour news</title><script>window.__STATE__=${JSON.stringify('x'.repeat(900_000))}</script></head>` +
          `<body><article><h1>Harbour news</h1>${'<p>The harbour board met again on Tuesday to discuss the ferry timetable and its costs.</p>'.repeat(8)}` +
          '<p>The new ferry enters service on 3 March with room for 420 passengers.</p></article></body></html>',
      );
    } else if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('word '.repeat(10_000));
    } else if (req.url?.startsWith('/hop/')) {
      const n = Number(req.url.slice(5));
      res.writeHead(302, { location: n > 0 ? `/hop/${n - 1}` : '/page' });
      res.end();
    } else if (req.url === '/to-private') {
      res.writeHead(301, { location: 'http://10.0.0.1/secret' });
      res.end();
    } else if (req.url === '/to-file') {
      res.writeHead(301, { location: 'file:///etc/passwd' });
      res.end();
    } else if (req.url === '/hostile') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(HOSTILE_PAGES['deeply nested tags']);
    } else if (req.url === '/controls.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('\u001b]0;pwned\u0007Hello\u0000 world\u001b[2J\u009b31m \u202eevil\u200b\r\nnext\u{E0041}');
    } else if (req.url === '/controls.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<title>T&#27;]0;x&#7;</title><p>Hi&#27;[2J there&#x202E;&#8203;!</p>');
    } else if (req.url === '/image') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50]));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Only the test server's loopback address is allowed; everything else keeps the real policy. */
const onlyLoopbackServer: FetchUrlOptions = {
  policy: 'open',
  isAllowedAddress: (address) => address === '127.0.0.1' || !isBlockedAddress(address),
};

function registryWith(options: FetchUrlOptions) {
  return createToolRegistry([createFetchUrlTool(options) as Tool], { logger: silentLogger });
}

describe('fetch_url refuses what it must not reach', () => {
  const tool = registryWith({
    policy: 'open',
    resolver: async (host) => {
      if (host === 'intranet.example') return [{ address: '10.1.2.3', family: 4 }];
      if (host === 'sneaky.example')
        return [
          { address: '93.184.216.34', family: 4 },
          { address: '::1', family: 6 },
        ];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    },
  });
  const refused = [
    'http://127.0.0.1/',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[fd00::1]/',
    'http://2130706433/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://intranet.example/',
    'http://sneaky.example/',
  ];
  for (const url of refused) {
    it(`refuses ${url}`, async () => {
      const out = await tool.execute('fetch_url', JSON.stringify({ url }), context());
      expect(out.isError).toBe(true);
      expect(out.text).toMatch(/non-public address/);
    });
  }

  it('refuses non-http schemes', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'gopher://x/']) {
      const out = await tool.execute('fetch_url', JSON.stringify({ url }), context());
      expect(out.isError).toBe(true);
      expect(out.text).toMatch(/only http and https/);
    }
  });

  it('refuses the default policy for the loopback test server', async () => {
    const out = await registryWith({ policy: 'open' }).execute(
      'fetch_url',
      JSON.stringify({ url: `${base}/page` }),
      context(),
    );
    expect(out.isError).toBe(true);
    expect(hits).not.toContain('/page');
  });
});

describe('fetch_url reads pages', () => {
  it('turns HTML into readable text with the title', async () => {
    const out = await registryWith(onlyLoopbackServer).execute(
      'fetch_url',
      JSON.stringify({ url: `${base}/page` }),
      context(),
    );
    expect(out.isError).toBeUndefined();
    // Markdown: the heading stays a heading; bold inside a sentence is plain words (running-text.test.ts);
    // script and style never show.
    expect(out.text).toMatch(/^Hello & welcome\n\n#+ Heading\n\nFirst paragraph.\n\nSecond bold\.$/);
    expect(out.sources).toEqual([
      {
        title: 'Hello & welcome',
        url: `${base}/page`,
        snippet: expect.stringMatching(/^#+ Heading First paragraph\. Second bold\.$/),
      },
    ]);
  });

  it('reads an article that comes after most of a megabyte of inline script', async () => {
    const out = await registryWith(onlyLoopbackServer).execute(
      'fetch_url',
      JSON.stringify({ url: `${base}/big-news` }),
      context(),
    );
    expect(out.isError).toBeUndefined();
    expect(out.text).toContain('The new ferry enters service on 3 March with room for 420 passengers.');
    expect(out.text).not.toContain('too big to read whole');
    expect(out.text).not.toContain('xxxxxxxx');
  });

  it('follows up to 3 redirects, not 4', async () => {
    const tool = registryWith(onlyLoopbackServer);
    const ok = await tool.execute('fetch_url', JSON.stringify({ url: `${base}/hop/2` }), context());
    // The header names the page the text came from, since it is not the one asked for.
    expect(ok.text).toMatch(new RegExp(`^Hello & welcome\nRedirected to ${base}/page\\.\n`));
    const tooMany = await tool.execute('fetch_url', JSON.stringify({ url: `${base}/hop/3` }), context());
    expect(tooMany.isError).toBe(true);
    expect(tooMany.text).toMatch(/more than 3 redirects/);
  });

  it('checks every redirect target', async () => {
    const tool = registryWith(onlyLoopbackServer);
    const toPrivate = await tool.execute(
      'fetch_url',
      JSON.stringify({ url: `${base}/to-private` }),
      context(),
    );
    expect(toPrivate.text).toMatch(/10\.0\.0\.1.*non-public/);
    const toFile = await tool.execute('fetch_url', JSON.stringify({ url: `${base}/to-file` }), context());
    expect(toFile.text).toMatch(/only http and https/);
  });

  it('caps size and length, and refuses binary content', async () => {
    const tool = registryWith({ ...onlyLoopbackServer, maxBytes: 1_000, maxChars: 100 });
    const big = await tool.execute('fetch_url', JSON.stringify({ url: `${base}/big` }), context());
    expect(big.text).toContain('The page is too big to read whole: this is its first part.');
    // 1,000 bytes downloaded, of which the model gets one budget's worth (200 characters at least).
    const body = big.text.split('\n\n').slice(1).join('\n\n');
    expect(body.replace(/\[… \d+ paragraphs? skipped …\]/g, '').trim().length).toBeLessThanOrEqual(200);
    const image = await tool.execute('fetch_url', JSON.stringify({ url: `${base}/image` }), context());
    expect(image.isError).toBe(true);
    expect(image.text).toMatch(/unsupported content type image\/png/);
  });

  it('connects to the address it checked, not a second DNS answer (no rebinding)', async () => {
    let lookups = 0;
    const tool = registryWith({
      ...onlyLoopbackServer,
      resolver: async () => {
        lookups++;
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    // "pinned.invalid" does not exist in real DNS: the request only works if the socket uses our address.
    const port = new URL(base).port;
    const out = await tool.execute(
      'fetch_url',
      JSON.stringify({ url: `http://pinned.invalid:${port}/page` }),
      context(),
    );
    expect(out.text).toContain('Heading');
    expect(lookups).toBe(1);
  });

  it('allowPrivate lets tests reach loopback', async () => {
    const out = await registryWith({ policy: 'open', allowPrivate: true }).execute(
      'fetch_url',
      JSON.stringify({ url: `${base}/page` }),
      context(),
    );
    expect(out.text).toContain('Heading');
  });
});

describe('isBlockedAddress', () => {
  it('blocks private and special ranges, allows public ones', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '0.0.0.0',
      '::',
      '::1',
      'fe80::1',
      'fd12::1',
      'ff02::1',
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe',
    ]) {
      expect(isBlockedAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(isBlockedAddress(a), a).toBe(false);
    }
  });
});

describe('fetch_url under load', () => {
  it("reads what arrived in time while every reader is busy: the download's clock is not the reader's", async () => {
    const busy = new ReaderPool(1);
    try {
      const words = (title: string) =>
        Buffer.from(
          `<html><head><title>${title}</title></head><body><article>${Array.from(
            { length: 2_000 },
            (_, i) =>
              `<p>${title} paragraph ${i} has enough words in it to be read as prose by the reader.</p>`,
          ).join('')}</article></body></html>`,
        );
      // Two slow pages hold the only reader for longer than the whole download may take.
      const slow = ['slow1', 'slow2'].map((t) =>
        readForModel(
          { body: words(t), contentType: 'text/html', url: `https://example.test/${t}` },
          { maxChars: 8_000, pool: busy, limitMs: 60_000 },
        ),
      );
      const out = await registryWith({ ...onlyLoopbackServer, timeoutMs: 1_000, pool: busy }).execute(
        'fetch_url',
        JSON.stringify({ url: `${base}/page` }),
        context(),
      );
      expect(out.isError, out.text).toBeUndefined();
      expect(out.text).toContain('First paragraph.');
      await Promise.all(slow);
    } finally {
      await busy.close();
    }
  });
});

describe('fetch_url behind other pages', () => {
  /** A pool whose pages wait, once `hold` is set, until the test lets them in (a reader busy elsewhere). */
  class HeldPool extends ReaderPool {
    hold?: Promise<void>;
    onQueued?: () => void;
    override run(job: ReadJob, options?: Parameters<ReaderPool['run']>[1]) {
      if (!this.hold) return super.run(job, options);
      this.onQueued?.();
      return this.hold.then(() => super.run(job, options));
    }
  }

  it("reads a page that waited for a reader longer than the call may take: the wait is not the call's", async () => {
    const pool = new HeldPool(1);
    await readForModel(
      { body: Buffer.from('<title>Warm</title><p>Warming up.</p>'), contentType: 'text/html', url: base },
      { maxChars: 8_000, pool },
    );
    let letIn = () => {};
    pool.hold = new Promise<void>((resolve) => {
      letIn = resolve;
    });
    const queued = new Promise<void>((resolve) => {
      pool.onQueued = resolve;
    });
    // The registry's clock is the only one faked: the download and the reader run for real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const call = registryWith({
        ...onlyLoopbackServer,
        pool,
        timeoutMs: 1_000,
        readAllowanceMs: 1_000,
      }).execute('fetch_url', JSON.stringify({ url: `${base}/page` }), context());
      await queued;
      // The page arrived and waits for the reader far longer than the call's 2 s.
      vi.advanceTimersByTime(60_000);
      letIn();
      const out = await call;
      expect(out.isError, out.text).toBeUndefined();
      expect(out.text).toContain('First paragraph.');
    } finally {
      vi.useRealTimers();
      await pool.close();
    }
  });
});

describe('fetch_url in a search round', () => {
  it('reads a page that arrived whole within the bound while this thread was too busy to look', async () => {
    const boundMs = 1_500;
    let calledAt = 0;
    // Big enough to take the reader several looks at its socket (1.5 MB, as a tenth of real pages are).
    const filler =
      '<p>The harbour board met again to discuss the timetable and its costs at length.</p>'.repeat(18_000);
    const site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<html><head><title>Ferry</title></head><body><article><p>The ferry left at noon.</p>${filler}</article></body></html>`,
      );
      // The page is on its way; then this thread is busy past the download's bound (other pages
      // decoded on a loaded machine), so nothing has read the page when the bound runs out.
      while (performance.now() < calledAt + boundMs + 200) {}
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      calledAt = performance.now();
      const out = await registryWith(onlyLoopbackServer).execute(
        'fetch_url',
        JSON.stringify({ url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/` }),
        { ...context(), maxFetchMs: boundMs },
      );
      expect(out.isError, out.text).toBeUndefined();
      expect(out.text).toContain('The ferry left at noon.');
    } finally {
      await new Promise<void>((resolve) => site.close(() => resolve()));
    }
  });

  it('cuts a site still sending when the bound runs out', async () => {
    const trickle = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      const drip = setInterval(() => res.write('<p>More words, slowly.</p>'), 20);
      res.on('close', () => clearInterval(drip));
    });
    await new Promise<void>((resolve) => trickle.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(trickle.address() as AddressInfo).port}/`;
    try {
      const out = await registryWith(onlyLoopbackServer).execute('fetch_url', JSON.stringify({ url }), {
        ...context(),
        maxFetchMs: 300,
      });
      expect(out).toMatchObject({
        isError: true,
        text: `Could not fetch ${url}: no complete answer within 300 ms.`,
      });
    } finally {
      trickle.closeAllConnections();
      await new Promise<void>((resolve) => trickle.close(() => resolve()));
    }
  });

  it("bounds the download by the round's wait (maxFetchMs), not the tool's own", async () => {
    const out = await registryWith(onlyLoopbackServer).execute(
      'fetch_url',
      JSON.stringify({ url: `${base}/never` }),
      { ...context(), maxFetchMs: 200 },
    );
    expect(out.isError).toBe(true);
    expect(out.text).toBe(`Could not fetch ${base}/never: no complete answer within 200 ms.`);
  });
});

describe('fetch_url on hostile content', () => {
  it("reads a 512 KB page of nested tags, or says it is too complex past the reader's time limit", async () => {
    const url = JSON.stringify({ url: `${base}/hostile` });
    const ok = await registryWith(onlyLoopbackServer).execute('fetch_url', url, context());
    expect(ok.isError).toBeUndefined();
    expect(ok.text).toContain('(the page has no readable text)');
    const tooComplex = await registryWith({ ...onlyLoopbackServer, readLimitMs: 1 }).execute(
      'fetch_url',
      url,
      context(),
    );
    expect(tooComplex.isError).toBe(true);
    expect(tooComplex.text).toMatch(/too complex to read/);
  });

  it('strips control bytes and invisible characters from plain text and from decoded HTML', async () => {
    const tool = registryWith(onlyLoopbackServer);
    const plain = await tool.execute('fetch_url', JSON.stringify({ url: `${base}/controls.txt` }), context());
    expect(plain.text).toContain(']0;pwnedHello world[2J31m evil\nnext');
    const html = await tool.execute('fetch_url', JSON.stringify({ url: `${base}/controls.html` }), context());
    expect(html.text).toMatch(/^T\]0;x\n/);
    expect(html.text).toContain('Hi[2J there!');
    for (const out of [plain.text, html.text]) {
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b\u202e]|\udb40/);
    }
  });
});

describe('SSRF ranges (ipaddr.js special-purpose registries)', () => {
  it('refuses IPv6 transition ranges that carry or reach a non-public address', () => {
    for (const a of [
      '64:ff9b:1::a00:1', // NAT64 local-use (RFC 8215), always refused
      '64:ff9b::a00:1', // NAT64 well-known to 10.0.0.1
      '64:ff9b::7f00:1', // … to 127.0.0.1
      '2002:a00:1::1', // 6to4 behind 10.0.0.1
      '2002:a9fe:a9fe::1', // 6to4 behind 169.254.169.254
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      '::ffff:0:a00:1', // IPv4-translated (RFC 6145)
      '::ffff:7f00:1', // IPv4-mapped 127.0.0.1, hex form
      '::7f00:1', // IPv4-compatible
      '100::1', // discard-only
      '2001:db8::1', // documentation
      '5f00::1', // segment routing
      'fe80::1%eth0',
      'not-an-address',
    ]) {
      expect(isBlockedAddress(a), a).toBe(true);
    }
    // DNS64 networks reach public IPv4 hosts through 64:ff9b::/96; a public 6to4 site is public too.
    for (const a of ['64:ff9b::808:808', '2002:808:808::1', '2a00:1450:4001:81b::200e']) {
      expect(isBlockedAddress(a), a).toBe(false);
    }
  });

  it('fetch_url refuses those addresses as URL literals', async () => {
    const tool = registryWith({ policy: 'open' });
    for (const host of [
      '[64:ff9b:1::a00:1]',
      '[2002:a00:1::1]',
      '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
      '[::ffff:0:a00:1]',
    ]) {
      const out = await tool.execute('fetch_url', JSON.stringify({ url: `http://${host}/` }), context());
      expect(out.text, host).toMatch(/non-public address/);
    }
  });
});
