/**
 * Estimated cost of a call from a price table (USD per 1M tokens). The built-in table covers a few
 * common models; `PRICE_TABLE` (JSON, same shape, keyed "provider/model" or "model") is merged over
 * it. Prices change: these are list prices as published in 2025–2026, good enough for an estimate.
 * Cache reads and writes have their own optional prices (`cachedInput`, `cacheWrite`).
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
  // DeepSeek bills cache hits at a tenth of the input price.
  'deepseek/deepseek-flash': { input: 0.28, output: 0.42, cachedInput: 0.028 },
  'deepseek/deepseek-v4-flash': { input: 0.28, output: 0.42, cachedInput: 0.028 },
  // OpenAI: cached input at a quarter of the input price (4.1 family), half (4o family).
  'openai/gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'openai/gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'openai/gpt-4.1-nano': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'openai/gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'openai/gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  // Anthropic: cache reads at 0.1× input (0.05× for the x.5 generation), 5-minute cache writes at 1.25×.
  'anthropic/claude-sonnet-5-5': { input: 2, output: 10, cachedInput: 0.1, cacheWrite: 2.5 },
  'anthropic/claude-sonnet-5': { input: 2, output: 10, cachedInput: 0.2, cacheWrite: 2.5 },
  'anthropic/claude-sonnet-4-6': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
  'anthropic/claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
  'anthropic/claude-haiku-4-5': { input: 1, output: 5, cachedInput: 0.1, cacheWrite: 1.25 },
  'anthropic/claude-opus-4-5': { input: 5, output: 25, cachedInput: 0.5, cacheWrite: 6.25 },
  'anthropic/claude-opus-4-6': { input: 5, output: 25, cachedInput: 0.5, cacheWrite: 6.25 },
  'anthropic/claude-opus-4-1': { input: 15, output: 75, cachedInput: 1.5, cacheWrite: 18.75 },
  // Gemini: thinking tokens are billed as output (counted there by mapOpenAIUsage).
  'gemini/gemini-2.5-flash': { input: 0.3, output: 2.5, cachedInput: 0.075 },
  'gemini/gemini-2.5-pro': { input: 1.25, output: 10, cachedInput: 0.31 },
});

function isPrice(value: unknown): value is Price {
  if (!value || typeof value !== 'object') return false;
  const { input, output, cachedInput, cacheWrite } = value as Record<string, unknown>;
  const price = (v: unknown) => typeof v === 'number' && v >= 0;
  const optional = (v: unknown) => v === undefined || price(v);
  return price(input) && price(output) && optional(cachedInput) && optional(cacheWrite);
}

/**
 * The tables loaded so far, per `PRICE_TABLE` value: the budget, the turn's stats and the traces
 * each load the table, and share one (and so findPrice's answers for it). A process has one value;
 * the bound only keeps a caller passing many (tests) from growing this without end.
 */
const MAX_LOADED_TABLES = 16;
const loaded = new Map<string, PriceTable>();

/**
 * The built-in table with `PRICE_TABLE` merged over it. Entries that are not `{input, output}`
 * numbers are skipped (loadConfig already rejects invalid JSON). Parsed once per distinct value.
 */
export function loadPriceTable(json?: string): PriceTable {
  const cacheKey = json ?? '';
  const known = loaded.get(cacheKey);
  if (known) return known;
  const table: Record<string, Price> = { ...BUILT_IN_PRICES };
  let parsed: unknown;
  try {
    parsed = json ? JSON.parse(json) : undefined;
  } catch {
    // Left undefined: the built-in table alone.
  }
  if (parsed && typeof parsed === 'object') {
    for (const [key, value] of Object.entries(parsed)) if (isPrice(value)) table[key] = value;
  }
  // Frozen: shared between callers, and findPrice remembers its answers per table, which holds
  // only while the table cannot change.
  const frozen = Object.freeze(table);
  if (loaded.size >= MAX_LOADED_TABLES) loaded.clear();
  loaded.set(cacheKey, frozen);
  return frozen;
}

/**
 * findPrice's answers per table and label. A label is a configured "provider/model", so there are
 * few; the bound only guards against a caller passing arbitrary strings. Without it, every model
 * call of a model with no exact entry (a dated id, a local model) scanned and sliced every key of
 * the table, two or three times per call (the turn's meter, its stats and its trace each price it).
 */
const MAX_REMEMBERED_LABELS = 256;
const remembered = new WeakMap<PriceTable, Map<string, Price | null>>();

/**
 * Finds the price for "provider/model": exact key, then DeepSeek alias resolution, then the
 * model alone, then the longest key that prefixes it (dated ids such as claude-sonnet-4-5-20250929).
 */
export function findPrice(label: string, table: PriceTable = BUILT_IN_PRICES): Price | undefined {
  // A table that can still change (a caller's own object) is searched every time.
  if (!Object.isFrozen(table)) return searchPrice(label, table);
  let answers = remembered.get(table);
  if (!answers) {
    answers = new Map();
    remembered.set(table, answers);
  }
  const known = answers.get(label);
  if (known !== undefined) return known ?? undefined;
  const price = searchPrice(label, table);
  if (answers.size >= MAX_REMEMBERED_LABELS) answers.clear();
  answers.set(label, price ?? null);
  return price;
}

function searchPrice(label: string, table: PriceTable): Price | undefined {
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
