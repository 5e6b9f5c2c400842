import { describe, expect, it } from 'vitest';
import type { TurnStats } from '../../src/render/events.js';
import {
  formatCost,
  formatDuration,
  formatStatsDetail,
  formatStatsFooter,
} from '../../src/render/format-stats.js';

const stats: TurnStats = {
  models: [
    {
      label: 'deepseek/deepseek-chat',
      role: 'function_call',
      calls: 3,
      inputTokens: 1234,
      outputTokens: 567,
      reasoningTokens: 0,
      ms: 2140,
    },
    {
      label: 'openai/gpt-4.1-mini',
      role: 'answer',
      calls: 1,
      inputTokens: 3210,
      outputTokens: 890,
      reasoningTokens: 120,
      ms: 1980,
    },
  ],
  phases: { tools: 2300, answer: 2000 },
  totalTokens: 5901,
  costUsd: 0.00123,
  totalMs: 4321,
  toolCalls: 4,
  searches: 3,
};

describe('formatStatsFooter', () => {
  it('renders one compact line per the spec example', () => {
    expect(formatStatsFooter(stats, 'en')).toBe(
      '🔧 deepseek/deepseek-chat ×3 · 1,234→567 tok · 2.1 s | ✍️ openai/gpt-4.1-mini ×1 · 3,210→890 tok · 2.0 s | total 5,901 tok · ~$0.0012 · 4.3 s',
    );
  });

  it('speaks Chinese and omits an unknown cost', () => {
    const line = formatStatsFooter({ ...stats, costUsd: undefined, models: [stats.models[1]!] }, 'zh');
    expect(line).toBe('✍️ openai/gpt-4.1-mini ×1 · 3,210→890 tok · 2.0 秒 | 合计 5,901 tok · 4.3 秒');
    expect(line).not.toContain('$');
  });

  it('formats durations, costs and large numbers', () => {
    expect(formatDuration(65_400)).toBe('1 min 05 s');
    expect(formatDuration(800, 'zh')).toBe('0.8 秒');
    expect(formatCost(0.00001)).toBe('<$0.0001');
    expect(formatCost(2.5)).toBe('~$2.50');
    expect(formatStatsFooter({ ...stats, models: [], totalTokens: 1_234_567 }, 'en')).toBe(
      'total 1,234,567 tok · ~$0.0012 · 4.3 s',
    );
  });
});

describe('formatStatsDetail', () => {
  it('lists each model, the phases, totals and cost', () => {
    expect(formatStatsDetail(stats, 'en').split('\n')).toEqual([
      'Models:',
      '• 🔧 deepseek/deepseek-chat: 3 calls · in 1,234 · out 567 · time 2.1 s',
      '• ✍️ openai/gpt-4.1-mini: 1 call · in 3,210 · out 890 · reasoning 120 · time 2.0 s',
      'Phases: tools 2.3 s · answer 2.0 s',
      'Total tokens: 5,901',
      'Estimated cost: ~$0.0012',
      'Tool calls: 4',
      'Searches: 3',
      'Duration: 4.3 s',
    ]);
  });

  it('says when the cost is unknown, in Chinese too', () => {
    const detail = formatStatsDetail({ ...stats, costUsd: undefined }, 'zh');
    expect(detail).toContain('估算费用: 未知');
    expect(detail).toContain('推理 120');
  });
});

describe('prompt-cache figures', () => {
  const cachedModel = {
    ...stats.models[0]!,
    label: 'anthropic/claude-sonnet-4-5',
    inputTokens: 12_345,
    cachedInputTokens: 9_876,
    cacheWriteTokens: 1_500,
  };

  it('the footer says how much of the input was read from the cache, and only when some was', () => {
    const line = formatStatsFooter({ ...stats, models: [cachedModel, stats.models[1]!] }, 'en');
    expect(line).toContain('🔧 anthropic/claude-sonnet-4-5 ×3 · 12,345 (9,876 cached)→567 tok · 2.1 s');
    expect(line).toContain('✍️ openai/gpt-4.1-mini ×1 · 3,210→890 tok');
    expect(formatStatsFooter({ ...stats, models: [cachedModel] }, 'zh')).toContain(
      '12,345（缓存 9,876）→567 tok',
    );
  });

  it('the detail lists cache reads and writes as parts of the input', () => {
    expect(formatStatsDetail({ ...stats, models: [cachedModel] }, 'en')).toContain(
      '• 🔧 anthropic/claude-sonnet-4-5: 3 calls · in 12,345 · cached 9,876 · cache write 1,500 · out 567 · time 2.1 s',
    );
    expect(formatStatsDetail({ ...stats, models: [cachedModel] }, 'zh')).toContain(
      '输入 12,345 · 缓存读取 9,876 · 缓存写入 1,500 · 输出 567',
    );
  });
});
