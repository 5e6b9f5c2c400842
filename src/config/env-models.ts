/**
 * The environment variables of the LLM providers and models (part of EnvSchema, env.ts): keys and
 * base URLs, the function-call / answer / summary models, their defaults, timeouts and prices.
 */
import { DEFAULT_DEEPSEEK_VARIANT, resolveDeepSeekVariant } from '../llm/deepseek-variants.js';
import * as z from '../schema/zod.js';
import { checkedString, intIn, number, optionalString, url } from './env-values.js';

export const MODEL_FIELDS = {
  // ── LLM providers ───────────────────────────────────────────────────────────
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: url(),
  DEEPSEEK_API_KEY: optionalString,
  DEEPSEEK_BASE_URL: url('https://api.deepseek.com'),
  DEEPSEEK_MODEL_VARIANT: checkedString(
    DEFAULT_DEEPSEEK_VARIANT,
    (v) => resolveDeepSeekVariant(v) !== undefined,
    'unknown DeepSeek model variant',
  ),
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: url(),
  GEMINI_API_KEY: optionalString,
  GEMINI_BASE_URL: url('https://generativelanguage.googleapis.com/v1beta/openai/'),
  OPENAI_COMPATIBLE_BASE_URL: url(),
  OPENAI_COMPATIBLE_API_KEY: optionalString,
  OPENAI_COMPATIBLE_MODEL: optionalString,
  AGENT_FUNCTION_CALL_MODEL: optionalString,
  AGENT_ANSWER_MODEL: optionalString,
  /** Writes the summary of a long conversation's oldest turns; unset = the channel's function-call model. */
  SUMMARY_MODEL: optionalString,
  DEFAULT_TEMPERATURE: z._default(
    z.coerce
      .number({ error: 'must be a number' })
      .check(z.gte(0, 'must be at least 0'), z.lt(2, 'must be below 2')),
    0.7,
  ),
  // Unset: no max_tokens is sent (the server's own limit applies), except to Anthropic, which requires one.
  DEFAULT_MAX_TOKENS: z.pipe(
    z.transform((v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)),
    z.optional(number(1, 1_000_000, true)),
  ),
  LLM_TIMEOUT_MS: intIn(30_000, 1_000, 600_000),
  LLM_MAX_RETRIES: intIn(3, 0, 10),
  /** Base delay of the exponential backoff; tests shrink it. */
  LLM_RETRY_BASE_MS: intIn(1_000, 1, 60_000),
  /** Context window used for trimming history (tokens). */
  LLM_CONTEXT_WINDOW: intIn(64_000, 1_000, 2_000_000),
  /** JSON: {"provider/model": {"input": usd per 1M, "output": usd per 1M}}; merged over the built-in table. */
  PRICE_TABLE: optionalString,
};
