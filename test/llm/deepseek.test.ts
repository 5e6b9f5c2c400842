/** DeepSeek: variant aliases, thinking option, reasoning_content preservation, repair and one resend. */
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/errors.js';
import { repairDeepSeekHistory } from '../../src/llm/deepseek-repair.js';
import type { ChatMessage } from '../../src/llm/types.js';
import { openAIErrorBody, startFakeOpenAI, textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { clientFor, failure, useFakeServer } from './client-helpers.js';

/** A history where the assistant's tool-call message lost its reasoning (e.g. stored by an old version). */
const history: ChatMessage[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'weather in Paris?' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'call_1', name: 'web_search', arguments: '{"query":"Paris weather"}' }],
  },
  { role: 'tool', toolCallId: 'call_1', name: 'web_search', content: '1. Sunny, 21°C' },
  { role: 'assistant', content: 'It is sunny.' },
  { role: 'user', content: 'and tomorrow?' },
];

const MISSING = 'Missing `reasoning_content` field in the assistant message at message index 2.';

describe('DeepSeek', () => {
  const fake = useFakeServer(startFakeOpenAI);

  it('sends the seed aliases as the current model with thinking on or off', async () => {
    fake.enqueue(textReply('a'), textReply('b'), textReply('c'));
    await clientFor('deepseek', 'deepseek-chat', fake.baseUrl).complete({
      messages: [{ role: 'user', content: 'x' }],
    });
    await clientFor('deepseek', 'deepseek-reasoner', fake.baseUrl).complete({
      messages: [{ role: 'user', content: 'x' }],
    });
    await clientFor('deepseek', 'deepseek-v4-pro', fake.baseUrl).complete({
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(fake.requests.map((r) => [r.body.model, r.body.thinking])).toEqual([
      ['deepseek-flash', { type: 'disabled' }],
      ['deepseek-flash', { type: 'enabled' }],
      ['deepseek-v4-pro', { type: 'enabled' }],
    ]);
    expect(fake.requests[0]!.body.max_tokens).toBe(256);
  });

  it('streams reasoning before the answer and keeps it for the tool-call message', async () => {
    fake.enqueue(
      toolCallReply([{ name: 'web_search', arguments: { query: 'x' } }], { reasoning: 'I should search.' }),
    );
    const response = await clientFor('deepseek', 'deepseek-reasoner', fake.baseUrl).complete({
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(response.reasoning).toBe('I should search.');
    expect(response.toolCalls[0]).toMatchObject({
      id: 'call_1',
      name: 'web_search',
      arguments: '{"query":"x"}',
    });

    // The caller stores the turn as the agent does, then the next request carries reasoning_content.
    fake.enqueue(textReply('answer'));
    await clientFor('deepseek', 'deepseek-reasoner', fake.baseUrl).complete({
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: response.text,
          reasoning: response.reasoning,
          toolCalls: response.toolCalls,
        },
        { role: 'tool', toolCallId: 'call_1', name: 'web_search', content: 'data' },
      ],
    });
    expect(fake.requests.at(-1)!.body.messages[1]).toMatchObject({
      role: 'assistant',
      reasoning_content: 'I should search.',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'web_search', arguments: '{"query":"x"}' } },
      ],
    });
  });

  it('repairs a history whose tool-call message lost reasoning_content before sending', async () => {
    fake.enqueue(textReply('Tomorrow: rain.'));
    const response = await clientFor('deepseek', 'deepseek-reasoner', fake.baseUrl).complete({
      messages: history,
    });
    expect(response.text).toBe('Tomorrow: rain.');
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!.body.messages;
    expect(sent[2]).toMatchObject({ role: 'assistant', reasoning_content: '' });
    // Only tool-call messages need it in the first request.
    expect(sent[4]).not.toHaveProperty('reasoning_content');
    expect(sent[3]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '1. Sunny, 21°C' });
  });

  it('takes reasoning_content from plain stored objects that kept the wire name', () => {
    const stored = [
      {
        role: 'assistant',
        content: '',
        reasoning_content: 'old thought',
        toolCalls: [{ id: 'a', name: 'n', arguments: '{}' }],
      },
    ];
    const { messages, fixed } = repairDeepSeekHistory(stored as unknown as ChatMessage[]);
    expect(messages[0]).toMatchObject({ reasoning: 'old thought' });
    expect(fixed).toHaveLength(1);
  });

  it('answers a reasoning_content 400 with exactly one repaired resend', async () => {
    fake.enqueue({ status: 400, body: openAIErrorBody(MISSING) }, textReply('fixed'));
    const response = await clientFor('deepseek', 'deepseek-reasoner', fake.baseUrl).complete({
      messages: history,
    });
    expect(response.text).toBe('fixed');
    expect(fake.requests).toHaveLength(2);
    // The resend gives every assistant message the field.
    const resent = fake.requests[1]!.body.messages;
    expect(resent[2]).toHaveProperty('reasoning_content', '');
    expect(resent[4]).toHaveProperty('reasoning_content', '');
  });

  it('repairs even in non-thinking mode when the API asks for it', async () => {
    fake.enqueue({ status: 400, body: openAIErrorBody(MISSING) }, textReply('ok'));
    await clientFor('deepseek', 'deepseek-chat', fake.baseUrl).complete({ messages: history });
    expect(fake.requests[0]!.body.messages[2]).not.toHaveProperty('reasoning_content');
    expect(fake.requests[1]!.body.messages[2]).toHaveProperty('reasoning_content', '');
  });

  it('surfaces a reasoning_content error when the resend is rejected too', async () => {
    fake.fallback = { status: 400, body: openAIErrorBody(MISSING) };
    const err = (await failure(
      clientFor('deepseek', 'deepseek-reasoner', fake.baseUrl).complete({ messages: history }),
    )) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect(err.code).toBe('reasoning_content');
    expect(fake.requests).toHaveLength(2);
  });

  it('does not resend other 400s', async () => {
    fake.enqueue({ status: 400, body: openAIErrorBody('max_tokens is too large') });
    const err = (await failure(
      clientFor('deepseek', 'deepseek-reasoner', fake.baseUrl).complete({ messages: history }),
    )) as LlmError;
    expect(err.code).toBe('bad_request');
    expect(fake.requests).toHaveLength(1);
  });
});
