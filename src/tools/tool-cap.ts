/**
 * AGENT_MAX_TOOLS: how many tools go with one request. OpenAI refuses more than 128 and every
 * provider chooses worse among many, so a registry with more (dozens of MCP servers' tools) offers a
 * choice per question: Scout's own tools always, then those the channel turned on by name or pattern
 * (`/tools enable github__*`), then the tools most relevant to the question, ranked with BM25
 * (MiniSearch) over each tool's name and description, and the rest in configuration order.
 */
import { createRequire } from 'node:module';
import type MiniSearchType from 'minisearch';
import type { ToolDefinition } from '../llm/types.js';

// Loaded on the first request over the cap (most Scouts never have one): MiniSearch and the word
// segmenter cost ~15 ms each to set up, on every start otherwise.
const require = createRequire(import.meta.url);
let MiniSearch: typeof MiniSearchType | undefined;
let words: Intl.Segmenter | undefined;

/** Enough for several MCP servers; well under OpenAI's 128. */
export const DEFAULT_MAX_TOOLS = 64;

export interface ToolChoice {
  /** Never left out (Scout's own tools). */
  always(name: string): boolean;
  /** Chosen before any ranking (enabled by a channel rule). */
  preferred?: (name: string) => boolean;
  /** The user's message, for relevance. */
  question?: string;
}

/** Words of a text in any script (CJK included), with tool names split at `_`, `-` and camelCase. */
export function toolTerms(text: string): string[] {
  const spaced = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ');
  const terms: string[] = [];
  words ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  for (const part of words.segment(spaced)) if (part.isWordLike) terms.push(part.segment.toLowerCase());
  return terms;
}

/** A BM25 index of one tool list, built once per list (the registry keeps it with the list). */
export class ToolRanking {
  readonly #index: MiniSearchType<{ id: number; name: string; description: string }>;
  readonly #names: string[];

  constructor(definitions: readonly ToolDefinition[]) {
    MiniSearch ??= require('minisearch') as typeof MiniSearchType;
    this.#index = new MiniSearch({
      fields: ['name', 'description'],
      tokenize: toolTerms,
      processTerm: (term) => term,
      searchOptions: { boost: { name: 2 }, combineWith: 'OR', tokenize: toolTerms, processTerm: (t) => t },
    });
    this.#names = definitions.map((d) => d.name);
    // Descriptions are capped at 1,024 characters by the MCP source: indexing stays small.
    this.#index.addAll(
      definitions.map((d, id) => ({ id, name: d.name, description: d.description.slice(0, 2_048) })),
    );
  }

  /** Names by relevance to `question`, best first; those that share no word are not listed. */
  rank(question: string): string[] {
    if (!question.trim()) return [];
    // A question is at most a few thousand words; the query is cut so a 100 KB message stays cheap.
    return this.#index.search(question.slice(0, 4_000)).map((hit) => this.#names[hit.id as number]!);
  }
}

/**
 * The definitions to send: all of them when within `max`; otherwise the chosen `max` (never fewer
 * than the `always` ones), in their original order so the request stays stable across turns.
 */
export function capTools(
  definitions: readonly ToolDefinition[],
  max: number,
  choice: ToolChoice,
  ranking: () => ToolRanking,
): ToolDefinition[] {
  if (definitions.length <= max) return [...definitions];
  const chosen = new Set<string>();
  const names = definitions.map((d) => d.name);
  const take = (name: string) => {
    if (chosen.size < max || choice.always(name)) chosen.add(name);
  };
  for (const name of names) if (choice.always(name)) chosen.add(name);
  for (const name of names) if (choice.preferred?.(name)) take(name);
  if (chosen.size < max && choice.question) {
    const offered = new Set(names);
    for (const name of ranking().rank(choice.question)) if (offered.has(name)) take(name);
  }
  for (const name of names) take(name);
  return definitions.filter((d) => chosen.has(d.name));
}
