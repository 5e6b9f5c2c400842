/**
 * The SSE body is decoded as it arrives: a UTF-8 character cut across two network chunks must come
 * out whole (not as two replacement characters), as the model wrote it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postEventStreamTo } from '../helpers/local-event-stream.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe('postEventStream decoding', () => {
  it('joins a multibyte character split across network chunks', async () => {
    const event = Buffer.from(`data: ${JSON.stringify({ text: '搜索🔎é' })}\n\n`, 'utf8');
    // Cut inside the emoji (4 bytes) and inside the first CJK character (3 bytes).
    const first = event.indexOf(Buffer.from('🔎')) + 2;
    const second = event.indexOf(Buffer.from('搜')) + 1;
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event.subarray(0, second));
      setTimeout(() => {
        res.write(event.subarray(second, first));
        setTimeout(() => {
          res.write(event.subarray(first));
          res.end('data: [DONE]\n\n');
        }, 20);
      }, 20);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const stream = await postEventStreamTo(port);
    const events: string[] = [];
    for await (const batch of stream.events(() => {})) events.push(...batch);
    expect(events).toEqual([JSON.stringify({ text: '搜索🔎é' }), '[DONE]']);
  });
});
