/**
 * The factory the rest of Scout uses: a validated ModelConfig in, an LlmClient out. Picks the
 * driver (openai SDK for OpenAI/DeepSeek/Gemini/compatible, Anthropic SDK for Anthropic, each loaded
 * on first use) and wraps it with the shared retry, timeout and response rules (streaming-client.ts).
 */
import type { Logger } from 'pino';
import type { Config, Env } from '../config/env.js';
import { ConfigError } from '../errors.js';
import { silentLogger } from '../silent-logger.js';
import { resolveDeepSeekVariant } from './deepseek-variants.js';
import { lazyDriver } from './lazy-driver.js';
import { checkModelConfig, modelLabel } from './model-config.js';
import { DEFAULT_RETRY_POLICY, type SleepFn } from './retry.js';
import { createStreamingClient } from './streaming-client.js';
import type { LlmClient, ModelConfig, ProviderName } from './types.js';

export interface ProviderEndpoint {
  apiKey?: string;
  baseUrl?: string;
}

export interface LlmClientOptions {
  /** Keys and base URLs per provider (see `endpointsFromEnv`). */
  endpoints?: Partial<Record<ProviderName, ProviderEndpoint>>;
  /** No response (first byte, or the next chunk) within this → LlmError('timeout'). Default 30 000. */
  timeoutMs?: number;
  /** Bound on a whole streamed answer. Default 10 minutes. */
  maxStreamMs?: number;
  /** Retries after the first attempt for 429/5xx/network. Default 3. */
  maxRetries?: number;
  /** First backoff step, doubling. Default 1000; tests use ~5. */
  retryBaseMs?: number;
  /** Ceiling for one wait, server hints included. Default 60 000. */
  maxRetryDelayMs?: number;
  logger?: Logger;
  /** Replaces global fetch for the Anthropic SDK (tests, proxies); OpenAI-compatible calls use node:http. */
  fetch?: typeof fetch;
  /** Replaces the backoff sleep (tests record the delays instead of waiting). */
  sleep?: SleepFn;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
/** Long reasoning answers can take minutes; past ten something is wrong. */
export const DEFAULT_MAX_STREAM_MS = 600_000;

/** The variable a person sets for each provider's key, named in auth errors. */
const KEY_VARIABLE: Record<ProviderName, string> = {
  openai: 'OPENAI_API_KEY',
  deepseek: 'DEEPSEEK_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
  'openai-compatible': 'OPENAI_COMPATIBLE_API_KEY',
};

/** Defaults for providers whose endpoint is not the SDK's own. */
const DEFAULT_BASE_URL: Partial<Record<ProviderName, string>> = {
  deepseek: 'https://api.deepseek.com',
  gemini: 'https://generativelanguage.googleapis.com/v1beta/openai/',
};

/** Where the SDKs send requests when no base URL is set. */
const SDK_BASE_URL: Record<string, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
};

/** The base URL as shown to users: scheme, host and path only (never credentials or a query). */
export function endpointLabel(baseUrl: string | undefined): string | undefined {
  if (!baseUrl) return undefined;
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}

export function endpointsFromEnv(
  env: Partial<
    Pick<
      Env,
      | 'OPENAI_API_KEY'
      | 'OPENAI_BASE_URL'
      | 'DEEPSEEK_API_KEY'
      | 'DEEPSEEK_BASE_URL'
      | 'ANTHROPIC_API_KEY'
      | 'ANTHROPIC_BASE_URL'
      | 'GEMINI_API_KEY'
      | 'GEMINI_BASE_URL'
      | 'OPENAI_COMPATIBLE_API_KEY'
      | 'OPENAI_COMPATIBLE_BASE_URL'
    >
  >,
): Record<ProviderName, ProviderEndpoint> {
  const pick = (apiKey?: string, baseUrl?: string): ProviderEndpoint => ({
    ...(apiKey ? { apiKey } : {}),
    ...(baseUrl ? { baseUrl } : {}),
  });
  return {
    openai: pick(env.OPENAI_API_KEY, env.OPENAI_BASE_URL),
    deepseek: pick(env.DEEPSEEK_API_KEY, env.DEEPSEEK_BASE_URL),
    anthropic: pick(env.ANTHROPIC_API_KEY, env.ANTHROPIC_BASE_URL),
    gemini: pick(env.GEMINI_API_KEY, env.GEMINI_BASE_URL),
    'openai-compatible': pick(env.OPENAI_COMPATIBLE_API_KEY, env.OPENAI_COMPATIBLE_BASE_URL),
  };
}

/**
 * Builds a client. Validates the model config first (temperature, max_tokens, top_p, DeepSeek
 * variant) and throws ConfigError with the problems, before any call is made.
 */
export function createLlmClient(config: ModelConfig, options: LlmClientOptions = {}): LlmClient {
  const { config: checked, problems } = checkModelConfig(config);
  if (!checked) throw new ConfigError(problems.map((p) => `${modelLabel(config)}: ${p}`));
  const logger = options.logger ?? silentLogger;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxStreamMs = options.maxStreamMs ?? DEFAULT_MAX_STREAM_MS;
  const endpoint = options.endpoints?.[checked.provider] ?? {};
  if (checked.provider === 'openai-compatible' && !endpoint.baseUrl) {
    throw new ConfigError([`OPENAI_COMPATIBLE_BASE_URL: required by ${modelLabel(checked)}`]);
  }
  const baseUrl = endpoint.baseUrl ?? DEFAULT_BASE_URL[checked.provider];
  const driverOptions = {
    ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
    // Named in connection errors ("could not connect to http://localhost:11434/v1 — connection refused").
    endpoint: endpointLabel(baseUrl ?? SDK_BASE_URL[checked.provider]),
    ...((endpoint.baseUrl ?? DEFAULT_BASE_URL[checked.provider])
      ? { baseUrl: endpoint.baseUrl ?? DEFAULT_BASE_URL[checked.provider] }
      : {}),
    keyVariable: KEY_VARIABLE[checked.provider],
    // The SDK's own timeout only covers the wait for headers; the StreamGuard does the real work.
    sdkTimeoutMs: maxStreamMs,
    logger,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  // The provider SDK loads with the first call of a model that needs it, not at start.
  const apiModel =
    checked.provider === 'deepseek'
      ? (resolveDeepSeekVariant(checked.model)?.apiModel ?? checked.model)
      : checked.model;
  const failureContext = {
    provider: checked.provider,
    model: checked.model,
    keyVariable: driverOptions.keyVariable,
    secrets: [endpoint.apiKey],
    endpoint: driverOptions.endpoint,
  };
  const driver = lazyDriver(apiModel, failureContext, async () =>
    checked.provider === 'anthropic'
      ? (await import('./anthropic/anthropic-driver.js')).createAnthropicDriver(checked, driverOptions)
      : (await import('./openai/openai-driver.js')).createOpenAIDriver(checked, driverOptions),
  );
  return createStreamingClient(checked, modelLabel(checked), driver, {
    logger,
    timeoutMs,
    maxStreamMs,
    policy: {
      maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
      baseDelayMs: options.retryBaseMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
      maxDelayMs: options.maxRetryDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    },
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });
}

/** The usual way in: keys, base URLs, timeout and retry settings from the loaded configuration. */
export function createLlmClientFromConfig(config: Config, model: ModelConfig, logger?: Logger): LlmClient {
  return createLlmClient(model, {
    endpoints: endpointsFromEnv(config.env),
    timeoutMs: config.env.LLM_TIMEOUT_MS,
    maxRetries: config.env.LLM_MAX_RETRIES,
    retryBaseMs: config.env.LLM_RETRY_BASE_MS,
    ...(logger ? { logger } : {}),
  });
}
