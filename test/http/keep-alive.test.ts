/**
 * Scout's keep-alive pool (src/http/keep-alive.ts) at the edges: a connection the server closed while
 * it lay idle, and a process that has finished its work with a connection still pooled. The
 * agent-turn counts are in test/llm/keep-alive.test.ts.
 */
import { spawn } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEEP_ALIVE_IDLE_MS } from '../../src/http/keep-alive.js';
import { leanFetch } from '../../src/http/lean-fetch.js';
import { postEventStream } from '../../src/llm/openai/post-event-stream.js';
import { startFakeOpenAI, textReply } from '../helpers/fake-openai-server.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A server that answers a socket's first request and hangs up on any later one, unanswered. */
async function startForgetfulServer(): Promise<{
  url: string;
  connections: () => number;
  requests: () => number;
}> {
  let connections = 0;
  let requests = 0;
  const served = new WeakSet<Socket>();
  const server: Server = createServer((req, res) => {
    requests += 1;
    if (served.has(req.socket)) {
      req.socket.destroy(); // as if its idle limit had closed the connection as the request came
      return;
    }
    served.add(req.socket);
    req.resume();
    req.on('end', () => res.end(`answer ${requests}`));
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    connections: () => connections,
    requests: () => requests,
  };
}

describe('the keep-alive pool', () => {
  it('reuses the connection for the next call, and sends a request again on a fresh one when the server had closed it', async () => {
    const server = await startForgetfulServer();
    const first = await leanFetch(server.url, { method: 'POST', body: 'one', redirect: 'error' });
    expect(await first.text()).toBe('answer 1');
    const second = await leanFetch(server.url, { method: 'POST', body: 'two', redirect: 'error' });
    expect(await second.text()).toBe('answer 3');
    // Request 2 went over the pooled connection and was cut unanswered; request 3 opened another.
    expect(server.requests()).toBe(3);
    expect(server.connections()).toBe(2);
  });

  it('runs no idle timer on a connection while a model stream reads from it; back in the pool, the connection has its idle limit again', async () => {
    const fake = await startFakeOpenAI();
    closers.push(() => fake.close());
    fake.fallback = textReply('one two three four five six seven eight');
    // The connection each request of this process goes out on, as Node's HTTP client announces it.
    const sockets: Socket[] = [];
    const onStart = (message: unknown) => {
      const request = (message as { request: ClientRequest }).request;
      if (request.socket) sockets.push(request.socket);
      else request.once('socket', (socket) => sockets.push(socket));
    };
    subscribe('http.client.request.start', onStart);
    closers.push(async () => {
      unsubscribe('http.client.request.start', onStart);
    });

    const timeoutsWhileStreaming: Array<number | undefined> = [];
    for (let n = 0; n < 2; n++) {
      const stream = await postEventStream(
        `${fake.origin}/v1/chat/completions`,
        'sk-test',
        '{}',
        new AbortController().signal,
      );
      for await (const batch of stream.events(() => {})) {
        // The chunk with [DONE] may end the response too: the connection is then back in the pool.
        if (batch.some((data) => data.startsWith('[DONE]'))) break;
        timeoutsWhileStreaming.push(sockets.at(-1)?.timeout);
      }
    }
    expect(timeoutsWhileStreaming.length).toBeGreaterThan(4);
    // A timer on a streaming connection is re-armed by every chunk read: none is set meanwhile.
    expect(new Set(timeoutsWhileStreaming)).toEqual(new Set([0]));
    // One pooled connection served both streams, and lying idle it closes after the pool's limit
    // (or sooner, where the server's Keep-Alive header says it closes sooner).
    expect(fake.connections).toBe(1);
    expect(sockets).toHaveLength(2);
    expect(sockets[1]).toBe(sockets[0]);
    expect(sockets[0]!.timeout).toBeGreaterThan(0);
    expect(sockets[0]!.timeout).toBeLessThanOrEqual(KEEP_ALIVE_IDLE_MS);
  });

  it(
    'holds no finished process open: the pooled connection is idle and unref’d',
    async () => {
      const fake = await startFakeOpenAI();
      closers.push(() => fake.close());
      fake.fallback = textReply('hello');
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', join(import.meta.dirname, 'pooled-calls-child.ts'), fake.origin],
        {
          cwd: join(import.meta.dirname, '../..'),
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let doneAt = 0;
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('calls done')) doneAt = performance.now();
      });
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      const lingered = performance.now() - doneAt;
      expect(code).toBe(0);
      expect(doneAt).toBeGreaterThan(0);
      // Far below the pool's idle limit: the open connection did not keep the process alive (one that
      // did would end only when the idle timer, never early, closed it: half the limit separates them
      // however busy the machine).
      expect(lingered).toBeLessThan(KEEP_ALIVE_IDLE_MS / 2);
      // Three calls, one connection: the connection was pooled, not closed, when the process ended.
      expect(fake.requests).toHaveLength(3);
      expect(fake.connections).toBe(1);
    },
    2 * KEEP_ALIVE_IDLE_MS,
  );
});
