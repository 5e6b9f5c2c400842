/** SearXNG (self-hosted, no key): `GET {url}/search?q=…&format=json`. */
import { SearchError } from '../../errors.js';
import { cleanResults } from '../clean-results.js';
import { providerFetch, readJson } from '../http.js';
import type { SearchProvider, SearchResult } from '../types.js';
import { withSlash } from './tavily.js';

interface SearxngResponse {
  results?: Array<{ title?: string; url?: string; content?: string }>;
}

/** SearXNG answers 403 to format=json unless the instance enables it. */
const JSON_DISABLED_MESSAGE =
  'searxng refused format=json (HTTP 403): enable it in settings.yml under search.formats (add "json")';

export function createSearxngProvider(options: { baseUrl: string; timeoutMs: number }): SearchProvider {
  return {
    name: 'searxng',
    async search(query, { limit, signal }): Promise<SearchResult[]> {
      const url = new URL('search', withSlash(options.baseUrl));
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const response = await providerFetch(
        url,
        { method: 'GET', headers: { accept: 'application/json' } },
        {
          provider: 'searxng',
          timeoutMs: options.timeoutMs,
          signal,
          statusMessage: (status) => (status === 403 ? JSON_DISABLED_MESSAGE : undefined),
        },
      );
      const body = (await readJson(response, 'searxng')) as SearxngResponse;
      if (!body || !Array.isArray(body.results)) {
        throw new SearchError('searxng returned an unexpected response shape', 'searxng', response.status);
      }
      return cleanResults(
        body.results.map((r) => ({ title: r.title, url: r.url, snippet: r.content })),
        limit,
      );
    },
  };
}
