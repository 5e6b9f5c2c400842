/**
 * The metrics wrapper around a model client, driven as consume-stream drives it (for await, and a
 * consumer that stops early): every part passes through unchanged, the provider's stream is ended
 * when the consumer stops, and calls, tokens and failures are counted once.
 */
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/errors.js';
import type { LlmClient, StreamPart } from '../../src/llm/types.js';
import { instrumentLlm } from '../../src/ops/instrument-llm.js';
import { createMetrics } from '../../src/ops/metrics.js';

const usage = { inputTokens: 10, outputTokens: 4, reasoningTokens: 1 };

function client(parts: StreamPart[], fail?: LlmError) {
  const seen = { ended: false };
  const llm = {
    label: 'test/model',
    config: {},
    async *stream() {
      try {
        for (const part of parts) yield part;
        if (fail) throw fail;
      } finally {
        seen.ended = true;
      }
    },
  } as unknown as LlmClient;
  return { llm, seen };
}

async function counts(metrics: ReturnType<typeof createMetrics>) {
  const value = async (name: string, labels: Record<string, string>) => {
    const metric = await metrics.registry.getSingleMetric(name)!.get();
    const found = metric.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
    return found?.value ?? 0;
  };
  return {
    calls: await value('scout_llm_calls_total', {}),
    input: await value('scout_llm_tokens_total', { type: 'input' }),
    errors: await value('scout_llm_errors_total', { code: 'rate_limited' }),
  };
}

describe('instrumentLlm', () => {
  it('passes every part through and counts the call and its usage once', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const parts: StreamPart[] = [
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo' },
      { type: 'usage', usage },
      { type: 'finish', reason: 'stop', model: 'model', latencyMs: 5 },
    ];
    const { llm, seen } = client(parts);
    const out: StreamPart[] = [];
    for await (const part of instrumentLlm(metrics)(llm).stream({ messages: [] })) out.push(part);
    expect(out).toEqual(parts);
    expect(seen.ended).toBe(true);
    expect(await counts(metrics)).toEqual({ calls: 1, input: 10, errors: 0 });
  });

  it('ends the provider stream when the consumer stops early, counting the usage seen', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const { llm, seen } = client([
      { type: 'usage', usage },
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ]);
    for await (const part of instrumentLlm(metrics)(llm).stream({ messages: [] })) {
      if (part.type === 'text') break;
    }
    expect(seen.ended).toBe(true);
    expect(await counts(metrics)).toEqual({ calls: 1, input: 10, errors: 0 });
  });

  it('rethrows a failure, counting it and the usage it carries', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const failure = new LlmError('rate_limited', 'slow down', { usage });
    const { llm } = client([{ type: 'text', text: 'a' }], failure);
    const read = async () => {
      for await (const _ of instrumentLlm(metrics)(llm).stream({ messages: [] })) {
        // consume
      }
    };
    await expect(read()).rejects.toBe(failure);
    expect(await counts(metrics)).toEqual({ calls: 1, input: 10, errors: 1 });
  });
});
