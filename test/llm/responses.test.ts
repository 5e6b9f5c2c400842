/** Response handling: empty output, ids, provider metadata, odd chunks, message conversion. */
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/errors.js';
import pino from 'pino';
import type { ChatMessage, StreamPart } from '../../src/llm/types.js';
import {
  anthropicTextReply,
  anthropicToolUseReply,
  startFakeAnthropic,
} from '../helpers/fake-anthropic-server.js';
import { startFakeOpenAI, textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { clientFor, collectParts, failure, useFakeServer } from './client-helpers.js';

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('OpenAI-style responses', () => {
  const fake = useFakeServer(startFakeOpenAI);

  it('streams parts in order and ends with usage then finish (model and latency set)', async () => {
    fake.enqueue(
      textReply('Hello world', { usage: { inputTokens: 7, outputTokens: 3 }, model: 'gpt-4.1-mini-2025' }),
    );
    const parts = await collectParts(clientFor('openai', 'gpt-4.1-mini', fake.baseUrl).stream(ask));
    // The text's parts (the first alone, the rest gathered: batch-window.test.ts), then usage, finish.
    const types = parts.map((p) => p.type);
    expect(types.slice(-2)).toEqual(['usage', 'finish']);
    expect(new Set(types.slice(0, -2))).toEqual(new Set(['text']));
    expect(parts.map((p) => (p.type === 'text' ? p.text : '')).join('')).toBe('Hello world');
    expect(parts.at(-2)).toEqual({
      type: 'usage',
      usage: { inputTokens: 7, outputTokens: 3, reasoningTokens: 0 },
    });
    const finish = parts.at(-1) as Extract<StreamPart, { type: 'finish' }>;
    expect(finish).toMatchObject({ reason: 'stop', model: 'gpt-4.1-mini-2025' });
    expect(finish.latencyMs).toBeGreaterThanOrEqual(0);
    const body = fake.requests[0]!.body;
    expect(body).toMatchObject({
      model: 'gpt-4.1-mini',
      stream: true,
      temperature: 0.7,
      max_completion_tokens: 256,
    });
  });

  it('rejects an empty response with empty_response', async () => {
    fake.enqueue(textReply('', { reasoning: 'thinking only' }));
    const err = (await failure(clientFor('openai', 'gpt-4.1-mini', fake.baseUrl).complete(ask))) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect(err.code).toBe('empty_response');
    expect(err.message).toMatch(/the model returned no output/);
    expect(fake.requests).toHaveLength(1);
  });

  it('generates an id for a Gemini tool call with id "" and echoes extra_content back', async () => {
    const signature = { google: { thought_signature: 'c2lnbmF0dXJl' } };
    fake.enqueue(
      toolCallReply([{ name: 'web_search', arguments: { query: 'q' }, id: '', extraContent: signature }], {
        finishReason: 'stop',
      }),
    );
    const client = clientFor('gemini', 'gemini-2.5-flash', fake.baseUrl);
    const response = await client.complete(ask);
    const call = response.toolCalls[0]!;
    expect(call.id).toMatch(/^call_[0-9a-f]{10,}$/);
    expect(call.providerMetadata).toEqual({ extra_content: signature });
    // Gemini says "stop" even with tool calls; the agent needs tool_calls.
    expect(response.finishReason).toBe('tool_calls');

    fake.enqueue(textReply('done'));
    await client.complete({
      messages: [
        ...ask.messages,
        { role: 'assistant', content: '', toolCalls: response.toolCalls },
        { role: 'tool', toolCallId: call.id, name: 'web_search', content: 'r' },
      ],
    });
    const sent = fake.requests[1]!.body.messages;
    expect(sent[1].tool_calls[0]).toMatchObject({ id: call.id, extra_content: signature });
    expect(sent[1].content).toBeNull();
    expect(sent[2].tool_call_id).toBe(call.id);
  });

  it('merges repeated id/name fragments without concatenating them', async () => {
    const chunk = (delta: unknown, finish: string | null = null) => ({
      model: 'm',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    fake.enqueue([
      chunk({
        tool_calls: [
          { index: 0, id: 'c1', type: 'function', function: { name: 'web_search', arguments: '{"qu' } },
        ],
      }),
      chunk({
        tool_calls: [
          { index: 0, id: 'c1', type: 'function', function: { name: 'web_search', arguments: 'ery":"a"}' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 1, id: 'c2', function: { name: 'fetch_url', arguments: '' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    const response = await clientFor('openai-compatible', 'local', fake.baseUrl).complete(ask);
    expect(response.toolCalls).toEqual([
      { id: 'c1', name: 'web_search', arguments: '{"query":"a"}' },
      { id: 'c2', name: 'fetch_url', arguments: '{}' },
    ]);
  });

  it('logs a chunk of unexpected shape and treats its text as answer', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    fake.enqueue([
      { model: 'm', choices: [{ index: 0, delta: { content: 'Hi ' } }] },
      { text: 'there' },
      { weird: true },
    ]);
    const response = await clientFor('openai-compatible', 'local', fake.baseUrl, { logger }).complete(ask);
    expect(response.text).toBe('Hi there');
    expect(lines.join('')).toContain('unexpected shape');
  });

  it('ignores keep-alive comments and sends tools, tool_choice and json mode', async () => {
    fake.enqueue([': keep-alive\n\n', ...textReply('{"a":1}').chunks]);
    const response = await clientFor('deepseek', 'deepseek-chat', fake.baseUrl).complete({
      ...ask,
      tools: [{ name: 'web_search', description: 'd', parameters: { type: 'object', properties: {} } }],
      toolChoice: 'auto',
      json: true,
    });
    expect(response.text).toBe('{"a":1}');
    expect(fake.requests[0]!.body).toMatchObject({
      tools: [{ type: 'function', function: { name: 'web_search', description: 'd' } }],
      tool_choice: 'auto',
      response_format: { type: 'json_object' },
    });
  });

  it('talks to a base URL without /v1', async () => {
    fake.enqueue(textReply('root'));
    expect((await clientFor('openai-compatible', 'llama', fake.origin).complete(ask)).text).toBe('root');
    expect(fake.requests[0]!.path).toBe('/chat/completions');
  });
});

describe('Anthropic messages', () => {
  const fake = useFakeServer(startFakeAnthropic);

  it('sends system apart, tool results as user tool_result blocks, thinking before tool_use', async () => {
    fake.enqueue(anthropicTextReply('Sunny.', { thinking: 'Summarise the result.' }));
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are Scout.' },
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: 'Searching.',
        reasoning: 'Need a search.',
        reasoningSignature: 'sig-1',
        toolCalls: [{ id: 'toolu_1', name: 'web_search', arguments: '{"query":"weather"}' }],
      },
      { role: 'tool', toolCallId: 'toolu_1', name: 'web_search', content: 'Sunny' },
    ];
    const client = clientFor('anthropic', 'claude-test', fake.baseUrl, {}, { temperature: 0.3 });
    const response = await client.complete({
      messages,
      tools: [{ name: 'web_search', description: 'd', parameters: { type: 'object' } }],
      toolChoice: 'required',
    });
    expect(response).toMatchObject({
      text: 'Sunny.',
      reasoning: 'Summarise the result.',
      reasoningSignature: 'sig-fake',
      finishReason: 'stop',
    });
    const body = fake.requests[0]!.body;
    // Prompt-cache breakpoints (cache-breakpoints.ts): tools, system, the last assistant message, the end.
    const cache = { type: 'ephemeral' };
    expect(body.system).toEqual([{ type: 'text', text: 'You are Scout.', cache_control: cache }]);
    expect(body.temperature).toBe(0.3);
    expect(body.tools).toEqual([
      { name: 'web_search', description: 'd', input_schema: { type: 'object' }, cache_control: cache },
    ]);
    expect(body.tool_choice).toEqual({ type: 'any' });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Need a search.', signature: 'sig-1' },
          { type: 'text', text: 'Searching.' },
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'web_search',
            input: { query: 'weather' },
            cache_control: cache,
          },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny', cache_control: cache }],
      },
    ]);
  });

  it('assembles tool_use input from JSON fragments', async () => {
    fake.enqueue(
      anthropicToolUseReply([{ name: 'web_search', input: { query: 'news today' } }], {
        text: 'Let me look.',
      }),
    );
    const client = clientFor('anthropic', 'claude-test', fake.baseUrl, {}, { temperature: 0.3 });
    const response = await client.complete(ask);
    expect(response.text).toBe('Let me look.');
    expect(response.toolCalls).toEqual([
      { id: 'toolu_1', name: 'web_search', arguments: '{"query":"news today"}' },
    ]);
    expect(response.finishReason).toBe('tool_calls');
  });
});
