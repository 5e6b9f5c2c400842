import { describe, expect, it } from 'vitest';
import { fitHistory } from '../../src/core/history-window.js';
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
  it('keeps everything that fits and reports its size', () => {
    const window = fitHistory(history, 'q'.repeat(5), { contextWindow: 1_000, reserveTokens: 100, count });
    expect(window).toEqual({ messages: history, trimmed: false, tokens: 105 });
  });

  it('drops the oldest turns whole (never an answer without its question)', () => {
    const window = fitHistory(history, 'q'.repeat(5), { contextWindow: 130, reserveTokens: 100, count });
    expect(window.messages).toEqual(history.slice(2));
    expect(window.trimmed).toBe(true);
    expect(window.tokens).toBe(25);
  });

  it('drops all history when even the last turn does not fit', () => {
    const window = fitHistory(history, 'q'.repeat(5), { contextWindow: 110, reserveTokens: 100, count });
    expect(window.messages).toEqual([]);
    expect(window.trimmed).toBe(true);
  });
});
