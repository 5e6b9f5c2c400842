export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  /** The site's name, when a read page gave it (fetch_url); shown in References. */
  site?: string;
  /** Publication date (ISO), when a read page gave it; shown in References. */
  published?: string;
}

export type SearchProviderName = 'tavily' | 'brave' | 'searxng' | 'duckduckgo';

/** One web-search API. Throws SearchError on failure (the service turns it into a result text). */
export interface SearchProvider {
  readonly name: SearchProviderName;
  search(query: string, options: { limit: number; signal?: AbortSignal }): Promise<SearchResult[]>;
}

export interface SearchOutcome {
  results: SearchResult[];
  /** Served from the session cache (no HTTP request was made). */
  cached: boolean;
}

/** Web search with the per-session LRU cache (src/search/search-service.ts implements it). */
export interface SearchService {
  /** False when no provider is configured: chat mode says so, the agent gets no web_search tool. */
  readonly available: boolean;
  readonly providerName: SearchProviderName | 'none';
  /** Throws SearchError on provider failure (the web_search tool turns that into a result text). */
  search(
    query: string,
    options: { sessionKey: string; signal?: AbortSignal; limit?: number },
  ): Promise<SearchOutcome>;
  /** Drops a session's cache (mode switch, /reset, expiry). */
  clearSession(sessionKey: string): Promise<void>;
}
