/**
 * A tool output that is neither a page nor a result list (an MCP tool's text, up to 20,000
 * characters), shortened to a token budget: the start of its text, then a note that the rest is left
 * out. The note offers no way to read on: the same call again is answered as a repeat (the loop
 * detector), so it says only what is missing.
 */
import type { TextTokenCounter } from '../../llm/cached-token-counter.js';
import type { Observation } from './observations.js';
import { textHead } from './text-head.js';

/** Ends the output's text, in English like the rest of what the tools write for the models. */
export const SHORTENED_OUTPUT_NOTE =
  '[Shortened to fit the context window: the rest of this output is left out.]';

/** `output` (never shortened before) with at most `maxTextTokens` of its text. */
export function shortenOutput(
  output: Observation,
  maxTextTokens: number,
  count: TextTokenCounter,
): Observation {
  const kept = textHead(output.text, maxTextTokens, count);
  return { ...output, text: kept === '' ? SHORTENED_OUTPUT_NOTE : `${kept}\n\n${SHORTENED_OUTPUT_NOTE}` };
}
