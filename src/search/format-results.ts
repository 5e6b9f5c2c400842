/**
 * Search results as text for models. Both formats number results so the model can cite them as
 * `[n]`; the numbers are the answer-wide source numbers from SourceRegistry when the caller has them.
 * This text is data for the model, not instructions: callers wrap it in their data delimiters.
 */
import type { Source } from '../render/events.js';
import type { SearchResult } from './types.js';

/** A result (or a Source) with its answer-wide number; without `n` the position (1-based) is used. */
export type NumberedResult = Omit<SearchResult, 'snippet'> & { n?: number; snippet?: string };

/** What the model reads when a search found nothing, so it does not invent sources. */
export const NO_RESULTS_TEXT = 'No results found.';

/**
 * Chat mode: the results injected into the prompt, e.g.
 * ```
 * Web search results for "rust async":
 *
 * [1] Title
 * URL: https://…
 * Snippet…
 * ```
 */
export function formatSearchContext(sources: readonly Source[], options: { query?: string } = {}): string {
  const header = options.query
    ? `Web search results for "${oneLine(options.query)}":`
    : 'Web search results:';
  if (sources.length === 0) return `${header}\n\n${NO_RESULTS_TEXT}`;
  const blocks = sources.map((s) => {
    const lines = [`[${s.n}] ${oneLine(s.title)}`, `URL: ${s.url}`];
    if (s.snippet) lines.push(oneLine(s.snippet));
    return lines.join('\n');
  });
  return `${header}\n\n${blocks.join('\n\n')}`;
}

/**
 * Agent tool result: compact, one block per result, e.g.
 * ```
 * [1] Title — https://…
 *     Snippet…
 * ```
 */
export function formatToolResults(results: NumberedResult[]): string {
  if (results.length === 0) return NO_RESULTS_TEXT;
  return results
    .map((r, i) => {
      const head = `[${r.n ?? i + 1}] ${oneLine(r.title)} — ${r.url}`;
      return r.snippet ? `${head}\n    ${oneLine(r.snippet)}` : head;
    })
    .join('\n');
}

/** Newlines inside a field would break the numbered layout the model relies on. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
