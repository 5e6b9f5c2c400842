import { describe, expect, it } from 'vitest';
import { markCacheBreakpoints } from '../../src/llm/anthropic/cache-breakpoints.js';
import type { AnthropicMessage } from '../../src/llm/anthropic/convert-messages.js';

const CACHE = { type: 'ephemeral' };
const marked = (messages: AnthropicMessage[]) =>
  messages.flatMap((m, i) => m.content.flatMap((b, j) => (b['cache_control'] ? [`${i}.${j}`] : [])));

describe('markCacheBreakpoints', () => {
  it('never marks a thinking block or an empty text: the last block that can carry a mark', () => {
    const messages: AnthropicMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't', signature: 's' },
          { type: 'tool_use', id: 'a', name: 'web_search', input: {} },
          { type: 'redacted_thinking', data: 'x' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'r' },
          { type: 'text', text: '' },
        ],
      },
    ];
    markCacheBreakpoints({ messages });
    expect(marked(messages)).toEqual(['1.1', '2.0']);
  });

  it('at most four marks: last tool, system, last assistant message, end', () => {
    const tools = [{ name: 'a' }, { name: 'b' }];
    const system = [{ type: 'text' as const, text: 'You are Scout.' }];
    const messages: AnthropicMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'q1' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'a1' }] },
      { role: 'user', content: [{ type: 'text', text: 'q2' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'a2' }] },
      { role: 'user', content: [{ type: 'text', text: 'q3' }] },
    ];
    markCacheBreakpoints({ tools, system, messages });
    expect(tools.map((t) => 'cache_control' in t)).toEqual([false, true]);
    expect(system[0]).toEqual({ type: 'text', text: 'You are Scout.', cache_control: CACHE });
    expect(marked(messages)).toEqual(['3.0', '4.0']);
  });

  it('a last message sent only once is not written; an empty system prompt is not marked', () => {
    const system = [{ type: 'text' as const, text: '' }];
    const messages: AnthropicMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'q1' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'a1' }] },
      { role: 'user', content: [{ type: 'text', text: 'question and observations' }] },
    ];
    markCacheBreakpoints({ system, messages }, { lastMessageOnce: true });
    expect(system[0]).not.toHaveProperty('cache_control');
    expect(marked(messages)).toEqual(['1.0']);
  });
});
