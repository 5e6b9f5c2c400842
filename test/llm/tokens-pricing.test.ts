import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_PRICES, estimateCost, findPrice, loadPriceTable } from '../../src/llm/pricing.js';
import { countMessageTokens, countTokens, warnIfNearContextWindow } from '../../src/llm/tokens.js';

describe('token counting', () => {
  it('counts with o200k and adds per-message overhead', async () => {
    expect(await countTokens('')).toBe(0);
    expect(await countTokens('hello world')).toBe(2);
    // Special-token text in user input is counted, not rejected.
    expect(await countTokens('<|endoftext|>')).toBeGreaterThan(1);
    const messages = [
      { role: 'system' as const, content: 'hello world' },
      {
        role: 'assistant' as const,
        content: '',
        toolCalls: [{ id: 'a', name: 'web_search', arguments: '{"query":"x"}' }],
      },
    ];
    const total = await countMessageTokens(messages);
    expect(total).toBeGreaterThan(2 + 8);
    expect(await countMessageTokens([...messages, { role: 'user', content: 'hello world' }])).toBe(
      total + 2 + 4,
    );
  });

  it('warns once a prompt passes 80 % of the context window', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    expect(warnIfNearContextWindow(799, 1000, logger)).toBe(false);
    expect(lines).toHaveLength(0);
    expect(warnIfNearContextWindow(800, 1000, logger)).toBe(true);
    expect(JSON.parse(lines[0]!)).toMatchObject({ tokens: 800, contextWindow: 1000, percent: 80 });
  });
});

describe('pricing', () => {
  const usage = { inputTokens: 1_000_000, outputTokens: 500_000, reasoningTokens: 0 };

  it('estimates from the built-in table, resolving DeepSeek aliases and dated ids', () => {
    expect(estimateCost('openai/gpt-4.1-mini', usage)).toBeCloseTo(0.4 + 0.8);
    expect(estimateCost('deepseek/deepseek-chat', usage)).toBeCloseTo(0.28 + 0.21);
    expect(findPrice('anthropic/claude-sonnet-4-5-20250929')).toEqual(
      BUILT_IN_PRICES['anthropic/claude-sonnet-4-5'],
    );
    expect(estimateCost('openai-compatible/llama3', usage)).toBeUndefined();
  });

  it('merges PRICE_TABLE over the built-in prices and skips bad entries', () => {
    const table = loadPriceTable(
      '{"openai-compatible/llama3":{"input":0,"output":0},"openai/gpt-4.1-mini":{"input":1,"output":2},"bad":{"input":"x"}}',
    );
    expect(estimateCost('openai-compatible/llama3', usage, table)).toBe(0);
    expect(estimateCost('openai/gpt-4.1-mini', usage, table)).toBeCloseTo(2);
    expect(table['bad']).toBeUndefined();
    expect(loadPriceTable('not json')).toEqual(BUILT_IN_PRICES);
  });

  it('answers the same for a label asked again, and a table it can read is one that cannot change', () => {
    const table = loadPriceTable('{"openai-compatible/llama3":{"input":1,"output":2}}');
    // A loaded table is frozen, so a remembered answer can never go stale, and it is shared: the
    // same value loads the same table (the budget, the stats and the traces each load it).
    expect(Object.isFrozen(table)).toBe(true);
    expect(loadPriceTable('{"openai-compatible/llama3":{"input":1,"output":2}}')).toBe(table);
    expect(loadPriceTable()).not.toBe(table);
    expect(() => {
      (table as Record<string, unknown>)['openai/gpt-4.1'] = { input: 0, output: 0 };
    }).toThrow(TypeError);
    for (let i = 0; i < 3; i++) {
      expect(findPrice('openai-compatible/llama3-8b-instruct', table)).toEqual({ input: 1, output: 2 });
      expect(findPrice('anthropic/claude-haiku-4-5-20251001', table)).toEqual(
        BUILT_IN_PRICES['anthropic/claude-haiku-4-5'],
      );
      expect(findPrice('openai-compatible/mistral', table)).toBeUndefined();
    }
    // A caller's own table, changed between two calls, is read as it is now.
    const own: Record<string, { input: number; output: number }> = {};
    expect(findPrice('local/phi-4-mini', own)).toBeUndefined();
    own['local/phi-4'] = { input: 0, output: 0 };
    expect(findPrice('local/phi-4-mini', own)).toEqual({ input: 0, output: 0 });
  });
});
