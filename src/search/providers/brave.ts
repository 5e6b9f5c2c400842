/** Brave Search: `GET {base}/res/v1/web/search?q=…&count=…` with `X-Subscription-Token`. */
import { SearchError } from '../../errors.js';
import { cleanResults } from '../clean-results.js';
import { providerFetch, readJson } from '../http.js';
import type { SearchProvider, SearchResult } from '../types.js';
import { withSlash } from './tavily.js';

/** Brave rejects counts above 20. */
const BRAVE_MAX_COUNT = 20;

interface BraveResponse {
  web?: { results?: Array<{ title?: string; url?: string; description?: string }> };
}

export function createBraveProvider(options: {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
}): SearchProvider {
  return {
    name: 'brave',
    async search(query, { limit, signal }): Promise<SearchResult[]> {
      const url = new URL('res/v1/web/search', withSlash(options.baseUrl));
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(Math.min(limit, BRAVE_MAX_COUNT)));
      const response = await providerFetch(
        url,
        { method: 'GET', headers: { accept: 'application/json', 'x-subscription-token': options.apiKey } },
        { provider: 'brave', timeoutMs: options.timeoutMs, signal },
      );
      const body = (await readJson(response, 'brave')) as BraveResponse;
      if (!body || typeof body !== 'object') {
        throw new SearchError('brave returned an unexpected response shape', 'brave', response.status);
      }
      // No `web` section simply means no web results for this query.
      const results = body.web?.results ?? [];
      return cleanResults(
        results.map((r) => ({ title: r.title, url: r.url, snippet: r.description })),
        limit,
      );
    },
  };
}
