import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { type FetchUrlOptions, createFetchUrlTool } from '../../src/tools/fetch-url-tool.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { isBlockedAddress } from '../../src/tools/ssrf-guard.js';
import type { Tool, ToolContext } from '../../src/tools/types.js';

const context = (): ToolContext => ({ sessionKey: 's', signal: new AbortController().signal });

let server: Server;
let base: string;
const hits: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<html><head><title>Hello &amp; welcome</title><style>body{color:red}</style></head>' +
          '<body><script>alert("x")</script><h1>Heading</h1><p>First   paragraph.</p><p>Second <b>bold</b>.</p></body></html>',
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
  isAllowedAddress: (address) => address === '127.0.0.1' || !isBlockedAddress(address),
};

function registryWith(options: FetchUrlOptions) {
  return createToolRegistry([createFetchUrlTool(options) as Tool], { logger: silentLogger });
}

describe('fetch_url refuses what it must not reach', () => {
  const tool = registryWith({
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
    const out = await registryWith({}).execute(
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
    expect(out.text).toBe(
      `Title: Hello & welcome\nURL: ${base}/page\n\nHeading\n\nFirst paragraph.\n\nSecond bold.`,
    );
    expect(out.sources).toEqual([
      { title: 'Hello & welcome', url: `${base}/page`, snippet: 'Heading First paragraph. Second bold.' },
    ]);
  });

  it('follows up to 3 redirects, not 4', async () => {
    const tool = registryWith(onlyLoopbackServer);
    const ok = await tool.execute('fetch_url', JSON.stringify({ url: `${base}/hop/2` }), context());
    expect(ok.text).toContain('Title: Hello & welcome');
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
    expect(big.text).toContain('(truncated)');
    expect(big.text.length).toBeLessThan(300);
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
    const out = await registryWith({ allowPrivate: true }).execute(
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
