/**
 * A browser that stops reading never holds Scout's memory: its event stream stops queueing past a
 * bound, and once the browser reads again it is sent a snapshot (the page redraws from it) instead
 * of everything it missed. Driven through a real HTTP server and a client socket that pauses.
 */
import { createServer, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EventStream, MAX_PENDING_BYTES } from '../../adapters/web/event-stream.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function serverAndPausedClient(): Promise<{
  res: ServerResponse;
  client: Socket;
  received: () => string;
}> {
  let resolveRes: (res: ServerResponse) => void = () => {};
  const gotRes = new Promise<ServerResponse>((resolve) => {
    resolveRes = resolve;
  });
  const server = createServer((_req, res) => resolveRes(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const client = connect(port, '127.0.0.1');
  let text = '';
  client.on('data', (chunk) => {
    text += chunk.toString('utf8');
  });
  client.write('GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
  const res = await gotRes;
  cleanups.push(() => {
    client.destroy();
    server.close();
  });
  return { res, client, received: () => text };
}

describe('an event stream to a browser that stops reading', () => {
  it('queues at most its bound, then sends a snapshot once the browser reads again', async () => {
    const { res, client, received } = await serverAndPausedClient();
    client.pause();
    let caughtUp = 0;
    const stream = new EventStream(
      res,
      (s) => {
        caughtUp += 1;
        s.send({ id: 'snap', event: 'snapshot', data: '{"turn":null}' });
      },
      () => {},
    );
    const data = JSON.stringify({ append: 'x'.repeat(16 * 1024) });
    // Send until the stream holds back; a paused socket fills the kernel's buffers, then Node's.
    let sent = 0;
    while (res.writableLength <= MAX_PENDING_BYTES && sent < 100_000) {
      stream.send({ id: String(sent), event: 'patch', data });
      sent += 1;
    }
    const held = res.writableLength;
    for (let i = 0; i < 500; i++) stream.send({ id: `late-${i}`, event: 'patch', data });
    // 500 more events (8 MB) were offered: none was queued.
    expect(res.writableLength).toBe(held);
    expect(held).toBeLessThan(MAX_PENDING_BYTES + 2 * data.length);
    client.resume();
    await expect.poll(() => received().includes('event: snapshot'), { timeout: 10_000 }).toBe(true);
    expect(caughtUp).toBe(1);
    expect(received()).not.toContain('id: late-');
    stream.close();
  });
});
