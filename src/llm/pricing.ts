/**
 * Estimated cost of a call from a price table (USD per 1M tokens). The built-in table covers a few
 * common models; `PRICE_TABLE` (JSON, same shape, keyed "provider/model" or "model") is merged over
 * it. Prices change: these are list prices as published in late 2025, good enough for an estimate.
 */
import { resolveDeepSeekVariant } from './deepseek-variants.js';
import type { Usage } from './types.js';

export interface Price {
  /** USD per 1M input tokens. */
  input: number;
  /** USD per 1M output tokens (reasoning tokens are billed as output). */
  output: number;
  /** USD per 1M input tokens read from the prompt cache; the input price when absent. */
  cachedInput?: number;
  /** USD per 1M input tokens written to the prompt cache (Anthropic); the input price when absent. */
  cacheWrite?: number;
}

export type PriceTable = Readonly<Record<string, Price>>;

export const BUILT_IN_PRICES: PriceTable = Object.freeze({
  'deepseek/deepseek-flash': { input: 0.28, output: 0.42 },
  'deepseek/deepseek-v4-flash': { input: 0.28, output: 0.42 },
  'openai/gpt-4.1': { input: 2, output: 8 },
  'openai/gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'openai/gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'openai/gpt-4o': { input: 2.5, output: 10 },
  'openai/gpt-4o-mini': { input: 0.15, output: 0.6 },
  'anthropic/claude-sonnet-4-5': { input: 3, output: 15 },
  'anthropic/claude-haiku-4-5': { input: 1, output: 5 },
  'anthropic/claude-opus-4-1': { input: 15, output: 75 },
  'gemini/gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'gemini/gemini-2.5-pro': { input: 1.25, output: 10 },
});

function isPrice(value: unknown): value is Price {
  if (!value || typeof value !== 'object') return false;
  const { input, output, cachedInput, cacheWrite } = value as Record<string, unknown>;
  const price = (v: unknown) => typeof v === 'number' && v >= 0;
  const optional = (v: unknown) => v === undefined || price(v);
  return price(input) && price(output) && optional(cachedInput) && optional(cacheWrite);
}

/**
 * The built-in table with `PRICE_TABLE` merged over it. Entries that are not `{input, output}`
 * numbers are skipped (loadConfig already rejects invalid JSON).
 */
export function loadPriceTable(json?: string): PriceTable {
  const table: Record<string, Price> = { ...BUILT_IN_PRICES };
  if (!json) return table;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return table;
  }
  if (parsed && typeof parsed === 'object') {
    for (const [key, value] of Object.entries(parsed)) if (isPrice(value)) table[key] = value;
  }
  return table;
}

/**
 * Finds the price for "provider/model": exact key, then DeepSeek alias resolution, then the
 * model alone, then the longest key that prefixes it (dated ids such as claude-sonnet-4-5-20250929).
 */
export function findPrice(label: string, table: PriceTable = BUILT_IN_PRICES): Price | undefined {
  const slash = label.indexOf('/');
  const provider = slash > 0 ? label.slice(0, slash) : '';
  let model = slash > 0 ? label.slice(slash + 1) : label;
  if (provider === 'deepseek') model = resolveDeepSeekVariant(model)?.apiModel ?? model;
  const candidates = [provider ? `${provider}/${model}` : model, model];
  for (const key of candidates) if (table[key]) return table[key];
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    const keyModel = key.includes('/') ? key.slice(key.indexOf('/') + 1) : key;
    const keyProvider = key.includes('/') ? key.slice(0, key.indexOf('/')) : provider;
    if (keyProvider === provider && model.startsWith(keyModel) && (!best || key.length > best.length))
      best = key;
  }
  return best ? table[best] : undefined;
}

/** USD for one usage record, or undefined when the model has no known price. */
export function estimateCost(
  label: string,
  usage: Usage,
  table: PriceTable = BUILT_IN_PRICES,
): number | undefined {
  const price = findPrice(label, table);
  if (!price) return undefined;
  // Usage buckets are parts of inputTokens: cache reads and writes are priced apart, the rest as input.
  const cached = usage.cachedInputTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const plain = Math.max(0, usage.inputTokens - cached - written);
  const input =
    plain * price.input +
    cached * (price.cachedInput ?? price.input) +
    written * (price.cacheWrite ?? price.input);
  return (input + usage.outputTokens * price.output) / 1_000_000;
}
