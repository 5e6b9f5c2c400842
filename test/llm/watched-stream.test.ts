/**
 * watchedStream, as the metrics, limits and traces wrappers stack it around one model client: every
 * watcher sees every part in wrapping order, each call gets watchers of its own, a stop closes the
 * client's stream once, and a stack of wrappers is one step per part, not one per wrapper.
 */
import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../src/llm/types.js';
import { type StreamWatcher, watchedStream } from '../../src/llm/watched-stream.js';

const PARTS: StreamPart[] = [
  { type: 'text', text: 'a' },
  { type: 'text', text: 'b' },
  { type: 'finish', reason: 'stop', model: 'm', latencyMs: 1 },
];

/** A client stream that counts how often it was opened and closed early. */
function source(parts: StreamPart[], failAfter?: number) {
  const counts = { opened: 0, closed: 0 };
  const open = (): AsyncIterable<StreamPart> => ({
    [Symbol.asyncIterator]() {
      counts.opened += 1;
      let i = 0;
      return {
        next: async () => {
          if (failAfter !== undefined && i === failAfter) throw new Error('cut');
          const value = parts[i++];
          return value ? { done: false as const, value } : { done: true as const, value: undefined };
        },
        return: async () => {
          counts.closed += 1;
          return { done: true as const, value: undefined };
        },
      };
    },
  });
  return { open, counts };
}

function recorder(name: string, log: string[]): () => StreamWatcher {
  return () => ({
    part: (part) => log.push(`${name}:${part.type === 'text' ? part.text : part.type}`),
    error: () => log.push(`${name}:error`),
    end: () => log.push(`${name}:end`),
  });
}

/** Three wrappers, each around the stream the one inside it made, as the clients nest. */
function stacked(open: () => AsyncIterable<StreamPart>, log: string[]) {
  const meter = () => watchedStream(open, recorder('meter', log));
  const metrics = () => watchedStream(meter, recorder('metrics', log));
  return watchedStream(metrics, recorder('traces', log));
}

/** What the three stacked watchers log as the stream finishes and ends, in wrapping order. */
const FINISHED = [
  'meter:finish',
  'metrics:finish',
  'traces:finish',
  'meter:end',
  'metrics:end',
  'traces:end',
];

describe('watchedStream', () => {
  it('hands every part to every watcher, innermost first, and ends each once', async () => {
    const log: string[] = [];
    const { open, counts } = source(PARTS);
    const seen: StreamPart[] = [];
    for await (const part of stacked(open, log)) seen.push(part);
    expect(seen).toEqual(PARTS);
    expect(log).toEqual([
      'meter:a',
      'metrics:a',
      'traces:a',
      'meter:b',
      'metrics:b',
      'traces:b',
      ...FINISHED,
    ]);
    expect(counts).toEqual({ opened: 1, closed: 0 });
  });

  it('tells a watcher only the kinds of part it asks for, in wrapping order among the others', async () => {
    const log: string[] = [];
    const { open } = source([
      { type: 'reasoning', text: 'r' },
      ...PARTS.slice(0, 2),
      { type: 'usage', usage: { inputTokens: 3, outputTokens: 2, reasoningTokens: 0 } },
      PARTS[2]!,
    ]);
    const usageOnly = (name: string) => () => ({
      ...recorder(name, log)(),
      partTypes: ['usage', 'finish'] as const,
    });
    const meter = () => watchedStream(open, recorder('meter', log));
    const metrics = () => watchedStream(meter, usageOnly('metrics'));
    const seen: StreamPart[] = [];
    for await (const part of watchedStream(metrics, recorder('traces', log))) seen.push(part);
    expect(seen.map((p) => p.type)).toEqual(['reasoning', 'text', 'text', 'usage', 'finish']);
    expect(log).toEqual([
      'meter:reasoning',
      'traces:reasoning',
      'meter:a',
      'traces:a',
      'meter:b',
      'traces:b',
      'meter:usage',
      'metrics:usage',
      'traces:usage',
      ...FINISHED,
    ]);
  });

  it('a stack of wrappers takes one promise step per part, like a single wrapper', async () => {
    // Counted from outside: how many microtask turns the consumer waits for each part.
    const turnsPerPart = async (stream: AsyncIterable<StreamPart>) => {
      const iterator = stream[Symbol.asyncIterator]();
      let ticks = 0;
      let settled = false;
      const pending = iterator.next().then(() => {
        settled = true;
      });
      while (!settled) {
        await Promise.resolve();
        ticks += 1;
      }
      await pending;
      return ticks;
    };
    const single = await turnsPerPart(watchedStream(source(PARTS).open, () => ({})));
    const triple = await turnsPerPart(stacked(source(PARTS).open, []));
    expect(triple).toBe(single);
  });

  it('gives each iteration its own watchers and its own client stream', async () => {
    const log: string[] = [];
    const { open, counts } = source(PARTS);
    const stream = stacked(open, log);
    for await (const _ of stream) break;
    for await (const _ of stream) break;
    expect(counts).toEqual({ opened: 2, closed: 2 });
    expect(log.filter((line) => line.endsWith(':end'))).toHaveLength(6);
  });

  it('a failure reaches every watcher, each then ended, and then the consumer', async () => {
    const log: string[] = [];
    const { open } = source(PARTS, 1);
    const read = async () => {
      for await (const _ of stacked(open, log)) {
        // reading on until the client's stream fails
      }
    };
    await expect(read()).rejects.toThrow('cut');
    expect(log).toEqual([
      'meter:a',
      'metrics:a',
      'traces:a',
      'meter:error',
      'meter:end',
      'metrics:error',
      'metrics:end',
      'traces:error',
      'traces:end',
    ]);
  });

  it('a consumer that stops early closes the client stream once and ends the watchers', async () => {
    const log: string[] = [];
    const { open, counts } = source(PARTS);
    for await (const part of stacked(open, log)) if (part.type === 'text') break;
    expect(counts).toEqual({ opened: 1, closed: 1 });
    expect(log.slice(-3)).toEqual(['meter:end', 'metrics:end', 'traces:end']);
  });
});
