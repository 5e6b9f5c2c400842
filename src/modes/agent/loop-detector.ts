/**
 * Spots an agent going in circles (seed 000 "无限循环检测"): the same normalised query or the same
 * tool call made again, or a round whose results were all already known.
 */
import type { ToolCall } from '../../llm/types.js';

/** Lower-cased, whitespace-collapsed, trailing punctuation dropped: "Rust  1.80?" ≡ "rust 1.80". */
export function normaliseQuery(query: string): string {
  return query
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s?？!！.。,，;；:：]+$/u, '')
    .trim();
}

/** The query of a web_search call, or undefined when the arguments are not valid JSON with one. */
export function queryOf(call: ToolCall): string | undefined {
  try {
    const args = JSON.parse(call.arguments || '{}') as { query?: unknown };
    return typeof args.query === 'string' ? args.query : undefined;
  } catch {
    return undefined;
  }
}

/** Argument text with keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` count as one call. */
function canonicalArguments(raw: string): string {
  try {
    const value: unknown = JSON.parse(raw || '{}');
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const sorted = Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
      return JSON.stringify(sorted);
    }
    return JSON.stringify(value);
  } catch {
    return raw.trim();
  }
}

export class LoopDetector {
  private readonly seen = new Set<string>();

  private signature(call: ToolCall): string {
    const query = queryOf(call);
    return query !== undefined
      ? `${call.name}\u0000q:${normaliseQuery(query)}`
      : `${call.name}\u0000${canonicalArguments(call.arguments)}`;
  }

  /**
   * Splits a round's calls into new ones and repeats (of earlier rounds or of an earlier call in
   * the same round), and remembers the new ones.
   */
  partition(calls: ToolCall[]): { fresh: ToolCall[]; repeated: ToolCall[] } {
    const fresh: ToolCall[] = [];
    const repeated: ToolCall[] = [];
    for (const call of calls) {
      const sig = this.signature(call);
      if (this.seen.has(sig)) repeated.push(call);
      else {
        this.seen.add(sig);
        fresh.push(call);
      }
    }
    return { fresh, repeated };
  }
}
