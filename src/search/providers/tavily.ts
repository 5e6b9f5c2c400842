/** Tavily: `POST {base}/search` with `Authorization: Bearer <key>` and a JSON body. */
import { SearchError } from '../../errors.js';
import { type RawResult, cleanResults } from '../clean-results.js';
import { providerFetch, readJson } from '../http.js';
import type { SearchProvider, SearchResult } from '../types.js';

interface TavilyResponse {
  results?: Array<{ title?: string; url?: string; content?: string }>;
}

export function createTavilyProvider(options: {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
}): SearchProvider {
  const endpoint = new URL('search', withSlash(options.baseUrl));
  return {
    name: 'tavily',
    async search(query, { limit, signal }): Promise<SearchResult[]> {
      const response = await providerFetch(
        endpoint,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query, max_results: limit }),
        },
        { provider: 'tavily', timeoutMs: options.timeoutMs, signal },
      );
      const body = (await readJson(response, 'tavily')) as TavilyResponse;
      if (!body || !Array.isArray(body.results)) {
        throw new SearchError('tavily returned an unexpected response shape', 'tavily', response.status);
      }
      const raw: RawResult[] = body.results.map((r) => ({ title: r.title, url: r.url, snippet: r.content }));
      return cleanResults(raw, limit);
    },
  };
}

/** `new URL('search', 'https://x/api')` would drop `api`; a trailing slash keeps the base path. */
export function withSlash(base: string): string {
  return base.endsWith('/') ? base : `${base}/`;
}
