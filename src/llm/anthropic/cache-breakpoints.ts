/**
 * Anthropic prompt caching: Anthropic caches only up to blocks marked `cache_control` (OpenAI,
 * DeepSeek and Gemini cache a repeated prefix on their own). A request is cached in the order
 * tools → system → messages, so the breakpoints mark, from the most to the least shared:
 *
 * 1. the last tool definition: the tool list, the same for every conversation of a deployment;
 * 2. the system prompt: the same for every round and turn of a mode and language;
 * 3. the end of the last assistant message: the earlier rounds (or turns) of the conversation. The
 *    previous request ended one message before it, and Anthropic finds that entry by looking back
 *    up to 20 blocks from a breakpoint, so this request reads everything the previous one wrote;
 * 4. the end of this request, written for the next round or turn to read — unless the request says
 *    its last message is sent only once (the answer phase), where writing it (at 1.25× the input
 *    price) would buy nothing.
 *
 * That is Anthropic's limit of four. A prefix shorter than the model's minimum (1,024 tokens for
 * Sonnet, 4,096 for Haiku 4.5 / Opus 4.5) is simply not cached: marking it costs nothing.
 */
import type { AnthropicBlock, AnthropicMessage } from './convert-messages.js';

/** Anthropic accepts at most this many `cache_control` blocks per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** The default 5-minute cache: written at 1.25× the input price, read at 0.1×. */
const EPHEMERAL = { type: 'ephemeral' } as const;

/** Blocks that may not carry `cache_control` (thinking is cached only as part of later blocks). */
const UNMARKABLE = new Set(['thinking', 'redacted_thinking']);

export interface CacheableBody {
  tools?: Array<Record<string, unknown>>;
  system?: Array<{ type: 'text'; text: string; cache_control?: unknown }>;
  messages: AnthropicMessage[];
}

/** The last block of a message that can carry a breakpoint (not thinking, not empty text). */
function lastMarkable(message: AnthropicMessage | undefined): AnthropicBlock | undefined {
  if (!message) return undefined;
  for (let i = message.content.length - 1; i >= 0; i--) {
    const block = message.content[i]!;
    if (UNMARKABLE.has(block.type)) continue;
    if (block.type === 'text' && !block['text']) continue;
    return block;
  }
  return undefined;
}

/** Marks the request's stable prefix in place (see the file comment for where and why). */
export function markCacheBreakpoints(body: CacheableBody, options: { lastMessageOnce?: boolean } = {}): void {
  const marks: Array<Record<string, unknown>> = [];
  const lastTool = body.tools?.at(-1);
  if (lastTool) marks.push(lastTool);
  const system = body.system?.at(-1);
  if (system?.text) marks.push(system);
  const earlier = lastMarkable(body.messages.findLast((m) => m.role === 'assistant'));
  if (earlier) marks.push(earlier);
  const last = options.lastMessageOnce ? undefined : lastMarkable(body.messages.at(-1));
  if (last && last !== earlier) marks.push(last);
  for (const block of marks.slice(0, MAX_CACHE_BREAKPOINTS)) block['cache_control'] = { ...EPHEMERAL };
}
