/**
 * Anthropic's prompt cache, simulated for the fake Anthropic server, so tests and the benchmark can
 * see what a request would be billed. The rules are Anthropic's published ones:
 *
 * - the prompt is read in the order tools → system → messages, as a list of blocks;
 * - a block marked `cache_control` is a breakpoint: the prefix up to it is written to the cache (when
 *   it is at least `minTokens` long), as one entry per breakpoint;
 * - a request reads the longest cached prefix ending at a breakpoint or at one of the 20 block
 *   boundaries before each breakpoint;
 * - billed: the read part as cache reads (0.1× input), from there up to the last breakpoint as cache
 *   writes (1.25×), the rest as plain input (`input_tokens`).
 *
 * Tokens are o200k counts of each block's text (Claude's tokenizer differs a little; the ratios
 * between cached and uncached are what the numbers are for). Entries never expire (a turn takes
 * seconds; the cache lives 5 minutes).
 */
import { createHash } from 'node:crypto';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** Block boundaries before a breakpoint that Anthropic also checks for a hit. */
const LOOKBACK_BLOCKS = 20;

export interface CacheBill {
  /** Every input token of the request. */
  totalTokens: number;
  /** Anthropic's `input_tokens`: neither read from nor written to the cache. */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Breakpoints the request carried. */
  breakpoints: number;
}

/** Input tokens billed at the full price, for a bill: writes at 1.25×, reads at 0.1× (Anthropic's prices). */
export function billedEquivalent(
  bill: Pick<CacheBill, 'inputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>,
) {
  return bill.inputTokens + 1.25 * bill.cacheWriteTokens + 0.1 * bill.cacheReadTokens;
}

type Json = Record<string, unknown>;

interface Block {
  /** What identifies the block in the prefix (cache_control left out: it is not content). */
  key: string;
  tokens: number;
  breakpoint: boolean;
}

function textOf(block: Json): string {
  switch (block['type']) {
    case 'text':
      return String(block['text'] ?? '');
    case 'thinking':
      return String(block['thinking'] ?? '');
    case 'tool_use':
      return `${String(block['name'])} ${JSON.stringify(block['input'] ?? {})}`;
    case 'tool_result':
      return typeof block['content'] === 'string' ? block['content'] : JSON.stringify(block['content']);
    default:
      return JSON.stringify(block);
  }
}

function blockOf(role: string, block: Json, text: string): Block {
  const { cache_control: mark, ...content } = block;
  return {
    key: `${role}\u0000${JSON.stringify(content)}`,
    tokens: countTokens(text),
    breakpoint: mark !== undefined && mark !== null,
  };
}

/** The request as Anthropic caches it: tools, then system, then every message block. */
function blocksOf(body: Json): Block[] {
  const blocks: Block[] = [];
  for (const tool of (body['tools'] as Json[] | undefined) ?? []) {
    const text = `${String(tool['name'])} ${String(tool['description'] ?? '')} ${JSON.stringify(tool['input_schema'])}`;
    blocks.push(blockOf('tool', tool, text));
  }
  const system = body['system'];
  if (typeof system === 'string') blocks.push(blockOf('system', { type: 'text', text: system }, system));
  else
    for (const block of (system as Json[] | undefined) ?? [])
      blocks.push(blockOf('system', block, textOf(block)));
  for (const message of (body['messages'] as Json[] | undefined) ?? []) {
    const role = String(message['role']);
    const content = message['content'];
    const list =
      typeof content === 'string' ? [{ type: 'text', text: content }] : ((content as Json[]) ?? []);
    for (const block of list) blocks.push(blockOf(role, block, textOf(block)));
  }
  return blocks;
}

export interface PromptCacheSim {
  /** Bills one request and updates the cache as Anthropic would. */
  bill(body: Json): CacheBill;
  /** Every bill so far, in order. */
  readonly bills: CacheBill[];
}

/** `minTokens`: the model's shortest cacheable prefix (1,024 for Sonnet 4.x). */
export function createPromptCacheSim(options: { minTokens?: number } = {}): PromptCacheSim {
  const minTokens = options.minTokens ?? 1_024;
  const cache = new Set<string>();
  const bills: CacheBill[] = [];
  return {
    bills,
    bill(body) {
      const blocks = blocksOf(body);
      // The prefix ending at each block: its running token count and a hash naming it.
      const cumulative: number[] = [];
      const prefixes: string[] = [];
      const hash = createHash('sha256');
      let total = 0;
      for (const block of blocks) {
        total += block.tokens;
        hash.update(block.key);
        cumulative.push(total);
        prefixes.push(hash.copy().digest('hex'));
      }
      const marks = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
      let read = 0;
      for (const mark of marks) {
        for (let i = mark; i >= Math.max(0, mark - LOOKBACK_BLOCKS); i--) {
          if (cache.has(prefixes[i]!)) {
            read = Math.max(read, cumulative[i]!);
            break;
          }
        }
      }
      const last = marks.at(-1);
      let written = 0;
      if (last !== undefined && cumulative[last]! >= minTokens) {
        written = cumulative[last]! - read;
        for (const mark of marks) if (cumulative[mark]! >= minTokens) cache.add(prefixes[mark]!);
      }
      const bill: CacheBill = {
        totalTokens: total,
        inputTokens: total - read - written,
        cacheReadTokens: read,
        cacheWriteTokens: written,
        breakpoints: marks.length,
      };
      bills.push(bill);
      return bill;
    },
  };
}
