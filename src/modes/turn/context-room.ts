/**
 * How many tokens one request may take: LLM_CONTEXT_WINDOW less what the model must still write and
 * a margin for the estimate. A provider refuses a request whose prompt and max_tokens together pass
 * its window (OpenAI's `context_length_exceeded`), so the prompt gets the window minus the output.
 */
import { sentMaxTokens } from '../../llm/model-config.js';
import type { ModelConfig } from '../../llm/types.js';

/** Room kept for the output when no max_tokens is sent (the server decides how long it writes). */
export const RESERVED_OUTPUT_TOKENS = 2_000;

/**
 * Share of the window kept free because the counts are o200k estimates (tokens.ts): other providers'
 * tokenizers split the same text a little differently, and a request that fits by the estimate
 * must still fit by theirs.
 */
const ESTIMATE_MARGIN = 0.05;

/** Tokens a prompt for `model` may take in a context window of `window` tokens. */
export function promptRoom(window: number, model: ModelConfig): number {
  const output = sentMaxTokens(model) ?? RESERVED_OUTPUT_TOKENS;
  return Math.max(0, Math.floor(window * (1 - ESTIMATE_MARGIN)) - output);
}
