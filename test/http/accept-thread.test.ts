/**
 * The acceptor thread (src/http/accept-thread.ts) as Slack's HTTP mode uses it: a node:http server
 * that never listens itself, served on a port whose connections a worker thread accepts. Driven with
 * real clients over loopback: requests and keep-alive, large bodies both ways, the server's own
 * timeouts, a graceful close, and — the reason it exists — a burst of connections waiting while the
 * main thread's event loop is busy.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AcceptThread, serveFromAcceptThread } from '../../src/http/accept-thread.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const open: AcceptThread[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((thread) => thread.close(1_000)));
});

async function serve(handler: Handler, serverOptions: http.ServerOptions = {}) {
  const server: Server = http.createServer(serverOptions, handler);
  const thread = await serveFromAcceptThread(server, { port: 0, host: '127.0.0.1', backlog: 1024 });
  open.push(thread);
  return { server, thread, url: `http://127.0.0.1:${thread.port}` };
}

const readBody = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

describe('serveFromAcceptThread', () => {
  it('answers requests like a listening server, over one kept-alive connection', async () => {
    const peers = new Set<string>();
    const { url } = await serve(async (req, res) => {
      peers.add(`${req.socket.remoteAddress}:${req.socket.remotePort}`);
      const body = await readBody(req);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, url: req.url, got: body.toString() }));
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ask = (path: string, body?: string) =>
      new Promise<{ status: number; json: unknown }>((resolve, reject) => {
        const req = http.request(`${url}${path}`, { method: body ? 'POST' : 'GET', agent }, (res) => {
          readBody(res).then(
            (b) => resolve({ status: res.statusCode!, json: JSON.parse(b.toString()) }),
            reject,
          );
        });
        req.on('error', reject);
        req.end(body);
      });
    expect(await ask('/a')).toEqual({ status: 200, json: { method: 'GET', url: '/a', got: '' } });
    expect(await ask('/b', 'héllo 👋')).toEqual({
      status: 200,
      json: { method: 'POST', url: '/b', got: 'héllo 👋' },
    });
    expect(await ask('/c', 'again')).toEqual({
      status: 200,
      json: { method: 'POST', url: '/c', got: 'again' },
    });
    agent.destroy();
    // One connection for all three, and the handler saw the real peer's address.
    expect(peers.size).toBe(1);
    expect([...peers][0]).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('moves large bodies both ways intact, with a handler that reads slowly', async () => {
    const size = 8 * 1024 * 1024;
    const { url } = await serve(async (req, res) => {
      // Read slowly, so the relay has to hold the peer back instead of buffering everything.
      const chunks: Buffer[] = [];
      for await (const chunk of req) {
        chunks.push(chunk as Buffer);
        await new Promise((r) => setTimeout(r, 1));
      }
      const body = Buffer.concat(chunks);
      res.end(Buffer.concat([body, body]));
    });
    const sent = Buffer.alloc(size);
    for (let i = 0; i < size; i++) sent[i] = (i * 31 + (i >> 11)) & 0xff;
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const req = http.request(url, { method: 'POST' }, (res) => readBody(res).then(resolve, reject));
      req.on('error', reject);
      req.end(sent);
    });
    expect(reply.length).toBe(2 * size);
    expect(reply.subarray(0, size).equals(sent)).toBe(true);
    expect(reply.subarray(size).equals(sent)).toBe(true);
  });

  it('holds back a peer uploading to a request nobody reads, as TCP would', async () => {
    // Without flow control the acceptor would read the whole upload into the message queue.
    let started!: () => void;
    const requestSeen = new Promise<void>((r) => {
      started = r;
    });
    const { url } = await serve(() => started());
    const port = Number(new URL(url).port);
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    await new Promise((r) => socket.once('connect', r));
    const total = 256 * 1024 * 1024;
    socket.write(`POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: ${total}\r\n\r\n`);
    const block = Buffer.alloc(1024 * 1024, 0x61);
    let offered = 0;
    const pump = () => {
      while (offered < total && socket.write(block)) offered += block.length;
    };
    socket.on('drain', () => {
      offered += block.length;
      pump();
    });
    pump();
    await requestSeen;
    await new Promise((r) => setTimeout(r, 1_500));
    const written = socket.bytesWritten;
    await new Promise((r) => setTimeout(r, 500));
    // Loopback buffers on both sides hold a few MiB; past that the peer has to wait.
    expect(written).toBeLessThan(48 * 1024 * 1024);
    expect(socket.bytesWritten - written).toBeLessThan(1024 * 1024);
    socket.destroy();
  });

  it("keeps node:http's own protections: a request whose headers never end is dropped", async () => {
    const { url, thread } = await serve(() => {}, {
      headersTimeout: 300,
      requestTimeout: 300,
      connectionsCheckingInterval: 100,
    });
    const port = Number(new URL(url).port);
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write('POST /slack/events HTTP/1.1\r\nHost: x\r\n');
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    // Dropped by the headers timeout (its 408 says so; otherwise the socket would stay open past the
    // test's timeout), not "within 5 s".
    await new Promise((r) => socket.once('close', r));
    expect(Buffer.concat(received).toString()).toMatch(/^HTTP\/1\.1 408/);
    // The relay forgot it.
    await expect.poll(() => thread.connections).toBe(0);
  });

  it('close() answers the request in flight, closes idle connections, then refuses new ones', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const { url, thread } = await serve(async (req, res) => {
      if (req.url === '/slow') await held;
      res.end(req.url);
    });
    const idleAgent = new http.Agent({ keepAlive: true });
    const idle = await fetchText(`${url}/fast`, idleAgent);
    expect(idle).toBe('/fast');
    const slow = fetchText(`${url}/slow`);
    await expect.poll(() => thread.connections).toBe(2);
    const closing = thread.close(5_000);
    // The idle keep-alive connection goes at once; the one in flight stays.
    await expect.poll(() => thread.connections).toBe(1);
    release();
    expect(await slow).toBe('/slow');
    await closing;
    expect(thread.connections).toBe(0);
    await expect(fetchText(`${url}/late`)).rejects.toThrow(/ECONNREFUSED/);
    idleAgent.destroy();
  });

  it('a response in flight during close() says Connection: close, so its kept-alive client is refused next, not hung up', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const { url, thread } = await serve(async (_req, res) => {
      await held;
      res.end('done');
    });
    const agent = new http.Agent({ keepAlive: true });
    const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get(`${url}/slow`, { agent }, resolve).on('error', reject);
    });
    await expect.poll(() => thread.connections).toBe(1);
    const closing = thread.close(5_000);
    release();
    const res = await answered;
    expect(res.headers.connection).toBe('close');
    expect((await readBody(res)).toString()).toBe('done');
    await closing;
    // The same client asks again at once: a new connection, which the closed port refuses.
    await expect(fetchText(`${url}/late`, agent)).rejects.toThrow(/ECONNREFUSED/);
    agent.destroy();
  });

  it('once close() resolves, the port refuses connections', async () => {
    const { url, thread } = await serve((_req, res) => res.end('ok'));
    expect(await fetchText(`${url}/`, new http.Agent({ keepAlive: false }))).toBe('ok');
    await thread.close(1_000);
    const outcome = await new Promise<string>((resolve) => {
      const socket = net.connect(thread.port, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve('accepted');
      });
      socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    expect(outcome).toBe('ECONNREFUSED');
  });

  it('a port already taken is a start-up error naming the cause', async () => {
    const { thread } = await serve((_req, res) => res.end());
    const second = http.createServer();
    await expect(
      serveFromAcceptThread(second, { port: thread.port, host: '127.0.0.1', backlog: 16 }),
    ).rejects.toThrow(/EADDRINUSE/);
  });

  it('takes a burst of waiting connections in a few iterations of a busy event loop', async () => {
    // Each iteration of the main loop spends 10 ms at work, as with many turns streaming. A server
    // that listens itself accepts one connection per iteration in this state (Node 20 and 24); the
    // acceptor accepts them all and their requests arrive together.
    const burst = 300;
    let handled = 0;
    const { url } = await serve((_req, res) => {
      handled++;
      res.end('ok');
    });
    const dir = mkdtempSync(join(tmpdir(), 'scout-accept-'));
    const marker = join(dir, 'sent');
    const client = spawn(
      process.execPath,
      [
        '-e',
        `
        const http = require('node:http');
        const fs = require('node:fs');
        const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
        let sent = 0, ok = 0;
        for (let i = 0; i < ${burst}; i++) {
          const req = http.request(${JSON.stringify(url)}, { method: 'POST', agent }, (res) => {
            res.resume();
            res.on('end', () => { if (res.statusCode === 200 && ++ok === ${burst}) { console.log('all ok'); process.exit(0); } });
          });
          req.on('error', (e) => { console.error(e.message); process.exit(1); });
          req.on('finish', () => { if (++sent === ${burst}) fs.writeFileSync(${JSON.stringify(marker)}, ''); });
          req.end('{"type":"event_callback"}');
        }
        setTimeout(() => { console.error('only ' + ok + ' answered'); process.exit(2); }, 60000);
        `,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    client.stdout.on('data', (d) => {
      output += d;
    });
    client.stderr.on('data', (d) => {
      output += d;
    });
    const exited = new Promise<number | null>((r) => client.once('exit', r));
    // Hold the main thread until every request is on the wire: meanwhile only the acceptor runs.
    const spinUntil = Date.now() + 15_000;
    while (!existsSync(marker) && Date.now() < spinUntil) {
      /* busy, as a loaded event loop is */
    }
    expect(existsSync(marker)).toBe(true);
    let iterations = 0;
    await new Promise<void>((resolve) => {
      const iterate = () => {
        iterations++;
        const until = Date.now() + 10;
        while (Date.now() < until) {
          /* this iteration's work */
        }
        if (handled >= burst || iterations > 2_000) resolve();
        else setImmediate(iterate);
      };
      setImmediate(iterate);
    });
    expect(handled).toBe(burst);
    expect(iterations).toBeLessThanOrEqual(20);
    expect(await exited).toBe(0);
    expect(output).toContain('all ok');
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});

function fetchText(url: string, agent?: http.Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, agent ? { agent } : {}, (res) =>
      readBody(res).then((b) => resolve(b.toString()), reject),
    );
    req.on('error', reject);
  });
}
