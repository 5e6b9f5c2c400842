/**
 * Failed model calls and tool calls on their spans, as a traced turn's meter reports them:
 * the span is marked an error with the failure's code (the model call's `LlmError` code, a tool's
 * `tool_error`), never its message, and the caller still gets the failure or the tool's result.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/errors.js';
import type { LlmClient } from '../../src/llm/types.js';
import type { ToolOutput, ToolRegistry } from '../../src/tools/types.js';
import { inTracedTurn, memoryTracer } from '../helpers/traced-turn.js';

const SECRET = 'the request quoted back: secret question';

function failingClient(): LlmClient {
  const failure = () => new LlmError('timeout', SECRET, { provider: 'openai', model: 'm' });
  return {
    config: { provider: 'openai', model: 'm', temperature: 0 },
    label: 'openai/m',
    stream: () => ({
      async *[Symbol.asyncIterator]() {
        yield { type: 'text' as const, text: 'partial' };
        throw failure();
      },
    }),
    complete: async () => {
      throw failure();
    },
  };
}

describe('failure spans', () => {
  it('a model stream that fails is an error span with the LlmError code', async () => {
    const { spans, tracer } = memoryTracer();
    const seen: string[] = [];
    await inTracedTurn(tracer, async (meter) => {
      const client = meter.wrapLlm(failingClient());
      await expect(
        (async () => {
          for await (const part of client.stream({ messages: [] })) seen.push(part.type);
        })(),
      ).rejects.toBeInstanceOf(LlmError);
    });
    expect(seen).toEqual(['text']);
    const span = spans().find((s) => s.name === 'chat m');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('timeout');
    expect(JSON.stringify(span?.attributes)).not.toContain('secret');
  });

  it('a model call that fails is an error span with the LlmError code', async () => {
    const { spans, tracer } = memoryTracer();
    await inTracedTurn(tracer, async (meter) => {
      await expect(meter.wrapLlm(failingClient()).complete({ messages: [] })).rejects.toBeInstanceOf(
        LlmError,
      );
    });
    const span = spans().find((s) => s.name === 'chat m');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('timeout');
  });

  it('a tool call whose result is an error is an error span, and the model still gets the result', async () => {
    const { spans, tracer } = memoryTracer();
    const registry: ToolRegistry = {
      definitions: () => [],
      has: () => true,
      execute: async () => ({ text: `fetch failed: ${SECRET}`, isError: true }),
    };
    let output: ToolOutput | undefined;
    await inTracedTurn(tracer, async (meter) => {
      output = await meter.wrapTools(registry).execute('fetch_url', '{}', {
        sessionKey: 'k',
        signal: new AbortController().signal,
      });
    });
    expect(output).toEqual({ text: `fetch failed: ${SECRET}`, isError: true });
    const span = spans().find((s) => s.name.startsWith('execute_tool'));
    expect(span?.name).toBe('execute_tool fetch_url');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('tool_error');
    expect(JSON.stringify(span?.attributes)).not.toContain('secret');
  });
});
