import { ConfigError } from '../errors.js';
import { resolveDeepSeekVariant } from './deepseek-variants.js';
import { looksLikeSecret, SECRET_MODEL_PROBLEM } from './looks-like-secret.js';
import { type ModelConfig, PROVIDERS, type ProviderName } from './types.js';

export const DEFAULT_TEMPERATURE = 0.7;
/** Anthropic requires max_tokens; this is sent when neither the user nor the config set one. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

/** The max_tokens a request carries: the configured one, Anthropic's required default, or none. */
export function sentMaxTokens(config: ModelConfig): number | undefined {
  if (config.maxTokens !== undefined || config.provider !== 'anthropic') return config.maxTokens;
  // The thinking budget counts against max_tokens: leave room for the answer after it.
  return Math.max(ANTHROPIC_DEFAULT_MAX_TOKENS, (config.thinking ?? 0) + ANSWER_ROOM_AFTER_THINKING);
}

/** Tokens left for the answer after a full thinking budget, when max_tokens is not set. */
const ANSWER_ROOM_AFTER_THINKING = 4096;

/** A model choice as written by a person (env JSON, `/model tool …`), before validation. */
export interface ModelSpecInput {
  provider?: unknown;
  model?: unknown;
  temperature?: unknown;
  max_tokens?: unknown;
  maxTokens?: unknown;
  top_p?: unknown;
  topP?: unknown;
  /** Reasoning budget in tokens (Anthropic extended thinking, Gemini thinking budget). */
  thinking?: unknown;
  /** `true`/`false`: whether the model reads images (overrides the per-model default). */
  vision?: unknown;
}

/** Providers whose reasoning is switched on per model with `thinking=<budget>`. */
const THINKING_PROVIDERS = ['anthropic', 'gemini'];
/**
 * What a model name may look like: letters, digits and `. _ : @ + - /` (`gpt-4.1-mini`,
 * `claude-sonnet-4-5@20250929`, `Qwen/Qwen2.5-7B-Instruct`), at most 128 characters. A space, a quote
 * or a second token means something else was pasted here (often a key), so it is refused.
 */
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@+/-]{0,127}$/;
/** Anthropic's smallest thinking budget. */
const MIN_ANTHROPIC_THINKING = 1024;

export interface ModelDefaults {
  temperature?: number;
  maxTokens?: number;
  deepseekVariant?: string;
}

/**
 * Checks a model choice with the seed's rules and fills defaults. Returns the problems instead of
 * throwing so callers can prefix them with the variable or command they came from.
 */
export function checkModelConfig(
  input: ModelSpecInput,
  defaults: ModelDefaults = {},
): { config?: ModelConfig; problems: string[] } {
  const problems: string[] = [];
  const provider = String(input.provider ?? '').toLowerCase();
  if (!(PROVIDERS as readonly string[]).includes(provider)) {
    // Errors name the field and the expected form, never the value: it may be a pasted key.
    problems.push(`unknown provider (use one of ${PROVIDERS.join(', ')})`);
  }
  let model = typeof input.model === 'string' ? input.model.trim() : '';
  if (!model && provider === 'deepseek') model = defaults.deepseekVariant ?? 'deepseek-chat';
  // Said beside the form problem (a key pasted after a name breaks both), never instead of it.
  if (model && looksLikeSecret(model)) problems.push(SECRET_MODEL_PROBLEM);
  if (!model) problems.push('model name is missing');
  else if (!MODEL_NAME.test(model)) {
    problems.push(
      'model name must be letters, digits and . _ : @ + - / only (no spaces or quotes), at most 128 characters',
    );
  } else if (provider === 'deepseek' && !resolveDeepSeekVariant(model)) {
    problems.push('unknown DeepSeek model (see DEEPSEEK_MODEL_VARIANT for the names)');
  }

  const temperature = toNumber(input.temperature, defaults.temperature ?? DEFAULT_TEMPERATURE);
  const maxTemperature = provider === 'anthropic' ? 1 : 2;
  if (Number.isNaN(temperature) || temperature < 0 || temperature > maxTemperature || temperature === 2) {
    problems.push(
      provider === 'anthropic'
        ? 'temperature must be a number between 0 and 1 for Anthropic'
        : 'temperature must be a number, at least 0 and below 2',
    );
  }
  const rawMaxTokens = input.max_tokens ?? input.maxTokens;
  const maxTokens =
    rawMaxTokens === undefined || rawMaxTokens === null || rawMaxTokens === ''
      ? defaults.maxTokens
      : toNumber(rawMaxTokens, Number.NaN);
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens <= 0)) {
    problems.push('max_tokens must be a positive whole number');
  }
  const rawTopP = input.top_p ?? input.topP;
  const topP = rawTopP === undefined ? undefined : toNumber(rawTopP, Number.NaN);
  if (topP !== undefined && (Number.isNaN(topP) || topP <= 0 || topP > 1)) {
    problems.push('top_p must be a number above 0 and at most 1');
  }
  const thinking =
    input.thinking === undefined || input.thinking === '' ? undefined : toNumber(input.thinking, Number.NaN);
  if (thinking !== undefined) {
    if (!THINKING_PROVIDERS.includes(provider)) {
      problems.push(
        `thinking= is for ${THINKING_PROVIDERS.join(' and ')} models${provider === 'deepseek' ? ' (DeepSeek reasons with deepseek-reasoner)' : ''}`,
      );
    } else if (!Number.isInteger(thinking) || thinking < 0) {
      problems.push('thinking must be a token budget, a whole number');
    } else if (provider === 'anthropic' && thinking < MIN_ANTHROPIC_THINKING) {
      problems.push(
        `thinking must be at least ${MIN_ANTHROPIC_THINKING} tokens for Anthropic (got ${thinking})`,
      );
    } else if (provider === 'anthropic' && maxTokens !== undefined && maxTokens <= thinking) {
      problems.push(`max_tokens (${maxTokens}) must be larger than the thinking budget (${thinking})`);
    }
  }
  if (input.vision !== undefined && typeof input.vision !== 'boolean') {
    problems.push(`vision must be true or false (got ${String(input.vision)})`);
  }
  if (problems.length > 0) return { problems };
  const config: ModelConfig = { provider: provider as ProviderName, model, temperature };
  if (maxTokens !== undefined) config.maxTokens = maxTokens;
  if (thinking !== undefined) config.thinking = thinking;
  if (topP !== undefined) config.topP = topP;
  if (typeof input.vision === 'boolean') config.vision = input.vision;
  return { config, problems };
}

/**
 * Parses `provider/model` or a JSON object (`{"provider":"anthropic","model":"…","temperature":0.3}`).
 * `source` names where it came from (a variable or a command) for the error message.
 */
export function parseModelSpec(text: string, source: string, defaults: ModelDefaults = {}): ModelConfig {
  const trimmed = text.trim();
  let input: ModelSpecInput;
  if (trimmed.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      input = parsed as ModelSpecInput;
    } catch {
      throw new ConfigError([
        `${source}: invalid JSON (expected {"provider":"…","model":"…"} or provider/model)`,
      ]);
    }
  } else {
    const slash = trimmed.indexOf('/');
    if (slash <= 0) {
      throw new ConfigError([`${source}: expected provider/model (for example openai/gpt-4.1-mini) or JSON`]);
    }
    input = { provider: trimmed.slice(0, slash), model: trimmed.slice(slash + 1) };
  }
  const { config, problems } = checkModelConfig(input, defaults);
  if (!config) throw new ConfigError(problems.map((p) => `${source}: ${p}`));
  return config;
}

export function modelLabel(config: ModelConfig): string {
  return `${config.provider}/${config.model}`;
}

function toNumber(value: unknown, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return Number.NaN;
}
