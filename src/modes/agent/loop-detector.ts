/**
 * Spots an agent going in circles (seed 000 "无限循环检测"): the same normalised query or the same
 * tool call made again, or a round whose results were all already known (no new source and no page
 * text not read before: reading a long page on with `part` brings no new URL, but new text).
 */
import { createHash } from 'node:crypto';
import type { ToolCall } from '../../llm/types.js';
import type { Observation } from '../turn/observations.js';

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
  /** Hashes of the page texts read this turn (fetch_url results, result pages read in a round). */
  private readonly pagesRead = new Set<string>();

  /** A search by its normalised query; any other call by all its arguments (another `part` is another call). */
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

  /**
   * Remembers the pages among a round's observations; true when one of them is text not read
   * before in this turn. The text, not the URL, is what counts: part 2 of a page read before is new
   * material, while the same text fetched again under other arguments (a focus on a page that comes
   * whole) is not. Search result lists are not pages: a search counts by the sources it adds.
   */
  readNewText(observations: readonly Observation[]): boolean {
    let fresh = false;
    for (const observation of observations) {
      if (!observation.isPage) continue;
      const hash = createHash('sha256').update(observation.text).digest('base64');
      if (!this.pagesRead.has(hash)) {
        this.pagesRead.add(hash);
        fresh = true;
      }
    }
    return fresh;
  }
}
