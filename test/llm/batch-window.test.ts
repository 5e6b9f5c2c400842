/**
 * Once an answer's first part has gone on, the tokens that follow are gathered for a short window
 * (src/llm/openai/batch-window.ts) and go downstream together: at 50 tokens a second each token is
 * its own network chunk, and one pass through the pipeline per token was a sixth of a chat turn's
 * CPU. The first token is never held, nor the stream's end.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamPart } from '../../src/llm/types.js';
import { startFakeOpenAI, textReply } from '../helpers/fake-openai-server.js';
import { postEventStreamTo } from '../helpers/local-event-stream.js';
import { clientFor, collectParts, useFakeServer } from './client-helpers.js';

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };
const texts = (parts: StreamPart[]) => parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));

describe('a streamed answer through the client', () => {
  const fake = useFakeServer(startFakeOpenAI);

  it('hands on the first token alone, the rest in a few parts, and the whole text', async () => {
    const words = Array.from({ length: 12 }, (_, i) => `${String(i).padStart(2, '0')} `).join('');
    // Twelve network chunks 5 ms apart: twelve parts if each went on alone.
    fake.enqueue(textReply(words, { pieces: 12, chunkDelayMs: 5 }));
    const parts = await collectParts(clientFor('openai', 'gpt-4.1-mini', fake.baseUrl).stream(ask));
    const text = texts(parts);
    expect(text[0]).toBe('00 ');
    expect(text.join('')).toBe(words);
    expect(text.length).toBeLessThanOrEqual(6);
    expect(parts.slice(-2).map((p) => p.type)).toEqual(['usage', 'finish']);
  });
});

describe('postEventStream gathering', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  /**
   * A server that writes event A, then (once A was read and gathering is on) each later step 10 ms
   * apart; the events are read with a batch window that never ticks, so only what is never held
   * gets through. Returns the batch read after A, and the iterator for what follows.
   */
  async function afterFirstBatch(later: Array<(res: ServerResponse, stop: () => void) => void>) {
    const steps = [(res: ServerResponse) => res.write('data: A\n\n'), ...later];
    const caller = new AbortController();
    const gates = steps.map(() => deferred());
    server = createServer(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      for (let i = 0; i < steps.length; i++) {
        await gates[i]!.promise;
        steps[i]!(res, () => caller.abort());
      }
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const stream = await postEventStreamTo((server.address() as AddressInfo).port, () => {}, caller.signal);
    const events = stream.events(() => {});
    const iterator = events[Symbol.asyncIterator]();
    gates[0]!.resolve();
    // Not gathering yet: the first batch comes although the window never ticks.
    expect(await iterator.next()).toEqual({ done: false, value: ['A'] });
    events.gather();
    const next = iterator.next();
    for (let i = 1; i < steps.length; i++) {
      if (i > 1) await new Promise((resolve) => setTimeout(resolve, 10));
      gates[i]!.resolve();
    }
    return { next: await next, iterator };
  }

  it('holds events after gather() until [DONE], which releases them at once', async () => {
    const { next, iterator } = await afterFirstBatch([
      (res) => res.write('data: B\n\n'),
      (res) => res.write('data: C\n\n'),
      (res) => res.end('data: [DONE]\n\n'),
    ]);
    expect(next).toEqual({ done: false, value: ['B', 'C', '[DONE]'] });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('a Stop while events are held: what came goes on, then the stream fails', async () => {
    const { next, iterator } = await afterFirstBatch([
      (res) => res.write('data: B\n\n'),
      (_res, stop) => stop(),
    ]);
    expect(next).toEqual({ done: false, value: ['B'] });
    await expect(iterator.next()).rejects.toThrow();
  });

  it('releases held events when the body ends without [DONE]', async () => {
    const { next, iterator } = await afterFirstBatch([(res) => res.write('data: B\n\n'), (res) => res.end()]);
    expect(next).toEqual({ done: false, value: ['B'] });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });
});

/** A promise and its resolve (Promise.withResolvers is missing from Node 20). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
