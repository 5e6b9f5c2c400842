import { describe, expect, it } from 'vitest';
import { fitHistory } from '../../src/core/history-window.js';
import { loadMessageCounter } from '../../src/llm/tokens.js';
import type { ChatMessage } from '../../src/llm/types.js';

/** One token per character keeps the arithmetic visible. */
const count = (messages: ChatMessage[]) => messages.reduce((sum, m) => sum + m.content.length, 0);

const history: ChatMessage[] = [
  { role: 'user', content: 'a'.repeat(40) },
  { role: 'assistant', content: 'b'.repeat(40) },
  { role: 'user', content: 'c'.repeat(10) },
  { role: 'assistant', content: 'd'.repeat(10) },
];

describe('fitHistory', () => {
  it('keeps everything that fits and reports its size', async () => {
    const window = await fitHistory(history, 'q'.repeat(5), {
      contextWindow: 1_000,
      reserveTokens: 100,
      count,
    });
    expect(window).toEqual({ messages: history, trimmed: false, tokens: 105 });
  });

  it('drops the oldest turns whole (never an answer without its question)', async () => {
    const window = await fitHistory(history, 'q'.repeat(5), {
      contextWindow: 130,
      reserveTokens: 100,
      count,
    });
    expect(window.messages).toEqual(history.slice(2));
    expect(window.trimmed).toBe(true);
    expect(window.tokens).toBe(25);
  });

  it('drops all history when even the last turn does not fit', async () => {
    const window = await fitHistory(history, 'q'.repeat(5), {
      contextWindow: 110,
      reserveTokens: 100,
      count,
    });
    expect(window.messages).toEqual([]);
    expect(window.trimmed).toBe(true);
  });
});

describe('fitHistory with the real tokenizer', () => {
  const long: ChatMessage[] = [
    { role: 'user', content: 'first question '.repeat(40) },
    { role: 'assistant', content: 'first answer '.repeat(40) },
    { role: 'user', content: 'second question' },
    { role: 'assistant', content: 'second answer' },
  ];

  it('far from the limits: keeps everything, with an estimate no lower than the exact count', async () => {
    const window = await fitHistory(long, 'hello', { contextWindow: 100_000, reserveTokens: 1_000 });
    const countExactly = await loadMessageCounter();
    expect(window.messages).toEqual(long);
    expect(window.trimmed).toBe(false);
    const exact = [...long, { role: 'user' as const, content: 'hello' }]
      .map((m) => countExactly([m]))
      .reduce((a, b) => a + b, 0);
    expect(window.tokens).toBeGreaterThanOrEqual(exact);
  });

  it('near the limit: counts exactly and drops the oldest turn whole', async () => {
    const countExactly = await loadMessageCounter();
    const exactLast = countExactly([long[2]!]) + countExactly([long[3]!]);
    const question = countExactly([{ role: 'user', content: 'hello' }]);
    const window = await fitHistory(long, 'hello', {
      contextWindow: 1_000 + exactLast + question,
      reserveTokens: 1_000,
    });
    expect(window.messages).toEqual(long.slice(2));
    expect(window.trimmed).toBe(true);
    expect(window.tokens).toBe(exactLast + question);
  });
});
