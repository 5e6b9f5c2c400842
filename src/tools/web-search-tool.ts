/**
 * `web_search` for the agent (SPEC §4). Results are numbered locally 1..n in the text; the executor
 * registers `sources` in the answer's SourceRegistry and may re-render the text with
 * `formatToolResults` so the numbers match the answer-wide source numbers the model cites.
 */
import { heard } from '../turn-steps.js';
import { isAbortError } from '../errors.js';
import { formatToolResults } from '../search/format-results.js';
import * as z from '../schema/zod.js';
import type { SearchService } from '../search/types.js';
import type { Tool } from './types.js';

export const WEB_SEARCH_TOOL_NAME = 'web_search';
export const WEB_SEARCH_DESCRIPTION =
  'Search the internet for real-time information. Use it for recent events, live data, current news, or to verify facts.';

/**
 * Search APIs take a few hundred characters at most; a runaway model once wrote a 10,062-char query
 * that became a 21.8 KB URL and an HTTP 431. The model is told the bound and asked again.
 */
export const MAX_QUERY_CHARS = 400;

const inputSchema = z.object({
  query: z
    .string()
    .check(
      z.trim(),
      z.minLength(1),
      z.maxLength(MAX_QUERY_CHARS),
      z.describe('Search keywords; specific, clear and targeted'),
    ),
});
export type WebSearchInput = z.infer<typeof inputSchema>;

export function createWebSearchTool(
  search: SearchService,
  options: { limit?: number; timeoutMs?: number } = {},
): Tool<WebSearchInput> {
  return {
    name: WEB_SEARCH_TOOL_NAME,
    description: WEB_SEARCH_DESCRIPTION,
    inputSchema,
    timeoutMs: options.timeoutMs,
    async run({ query }, context) {
      try {
        const { results, cached } = await heard(
          context.hearStep,
          { kind: 'search', provider: search.providerName, query },
          () =>
            search.search(query, {
              sessionKey: context.sessionKey,
              signal: context.signal,
              limit: options.limit,
            }),
        );
        // What this turn's search found may be read in full (fetch policy, url-provenance.ts).
        context.provenance?.add(results.map((r) => r.url));
        return { text: formatToolResults(results), sources: results, cached };
      } catch (err) {
        // Cancellation is the registry's to report; everything else is a result the model can act on.
        if (isAbortError(err) || context.signal.aborted) throw err;
        const message = err instanceof Error ? err.message : String(err);
        return { isError: true, text: `Search failed: ${message}` };
      }
    },
  };
}
