/**
 * SearchService: picks a provider from the config, caps and cleans results, and caches them per
 * session (see session-cache.ts). Provider choice with SEARCH_PROVIDER=auto: Tavily key, then Brave
 * key, then SEARXNG_URL. DuckDuckGo is never picked automatically: it scrapes HTML and rate-limits
 * quickly, so it must be chosen explicitly (SEARCH_PROVIDER=duckduckgo).
 */
import type Keyv from 'keyv';
import type { Config } from '../config/env.js';
import { SearchError } from '../errors.js';
import type { Logger } from '../logger.js';
import { normalizeQuery } from './clean-results.js';
import { createBraveProvider } from './providers/brave.js';
import { createDuckDuckGoProvider } from './providers/duckduckgo.js';
import { createSearxngProvider } from './providers/searxng.js';
import { createTavilyProvider } from './providers/tavily.js';
import { SessionSearchCache } from './session-cache.js';
import type {
  SearchOutcome,
  SearchProvider,
  SearchProviderName,
  SearchResult,
  SearchService,
} from './types.js';

/** SPEC §4: at most 5 results per search. */
export const DEFAULT_RESULT_LIMIT = 5;
/** Upper bound for an explicit `limit`, so a caller cannot ask a provider for hundreds of results. */
export const MAX_RESULT_LIMIT = 10;

type SearchEnv = Pick<
  Config['env'],
  | 'SEARCH_PROVIDER'
  | 'TAVILY_API_KEY'
  | 'TAVILY_BASE_URL'
  | 'BRAVE_API_KEY'
  | 'BRAVE_BASE_URL'
  | 'SEARXNG_URL'
  | 'DUCKDUCKGO_BASE_URL'
  | 'SEARCH_TIMEOUT_MS'
  | 'SESSION_TTL'
>;

/** The provider the config selects, or undefined (with the reason) when none is usable. */
export function selectProvider(env: SearchEnv): { provider?: SearchProvider; reason?: string } {
  const timeoutMs = env.SEARCH_TIMEOUT_MS;
  const tavily = () =>
    env.TAVILY_API_KEY
      ? createTavilyProvider({ apiKey: env.TAVILY_API_KEY, baseUrl: env.TAVILY_BASE_URL ?? '', timeoutMs })
      : undefined;
  const brave = () =>
    env.BRAVE_API_KEY
      ? createBraveProvider({ apiKey: env.BRAVE_API_KEY, baseUrl: env.BRAVE_BASE_URL ?? '', timeoutMs })
      : undefined;
  const searxng = () =>
    env.SEARXNG_URL ? createSearxngProvider({ baseUrl: env.SEARXNG_URL, timeoutMs }) : undefined;
  switch (env.SEARCH_PROVIDER) {
    case 'none':
      return { reason: 'SEARCH_PROVIDER=none' };
    case 'tavily':
      return tavily()
        ? { provider: tavily() }
        : { reason: 'SEARCH_PROVIDER=tavily but TAVILY_API_KEY is not set' };
    case 'brave':
      return brave()
        ? { provider: brave() }
        : { reason: 'SEARCH_PROVIDER=brave but BRAVE_API_KEY is not set' };
    case 'searxng':
      return searxng()
        ? { provider: searxng() }
        : { reason: 'SEARCH_PROVIDER=searxng but SEARXNG_URL is not set' };
    case 'duckduckgo':
      return {
        provider: createDuckDuckGoProvider({
          baseUrl: env.DUCKDUCKGO_BASE_URL ?? 'https://html.duckduckgo.com',
          timeoutMs,
        }),
      };
    default: {
      const provider = tavily() ?? brave() ?? searxng();
      return provider
        ? { provider }
        : {
            reason:
              'no TAVILY_API_KEY, BRAVE_API_KEY or SEARXNG_URL set (SEARCH_PROVIDER=duckduckgo enables keyless search)',
          };
    }
  }
}

export function createSearchService(
  config: Pick<Config, 'env'>,
  stores: { searchCache: Keyv },
  logger: Logger,
): SearchService {
  const { provider, reason } = selectProvider(config.env);
  const log = logger.child({ component: 'search' });
  if (provider) log.info({ provider: provider.name }, 'web search enabled');
  else log.info({ reason }, 'web search unavailable');
  return new CachedSearchService(
    provider,
    new SessionSearchCache(stores.searchCache, config.env.SESSION_TTL),
    log,
  );
}

export class CachedSearchService implements SearchService {
  readonly available: boolean;
  readonly providerName: SearchProviderName | 'none';
  /** Identical concurrent queries in one session share one request (agent tool calls run in parallel). */
  private readonly inFlight = new Map<string, Promise<SearchResult[]>>();

  constructor(
    private readonly provider: SearchProvider | undefined,
    private readonly cache: SessionSearchCache,
    private readonly logger: Logger,
  ) {
    this.available = provider !== undefined;
    this.providerName = provider?.name ?? 'none';
  }

  async search(
    query: string,
    options: { sessionKey: string; signal?: AbortSignal; limit?: number },
  ): Promise<SearchOutcome> {
    const provider = this.provider;
    if (!provider) throw new SearchError('no search provider is configured', 'none');
    const normalized = normalizeQuery(query);
    if (!normalized) throw new SearchError('the search query is empty', provider.name);
    const limit = Math.max(1, Math.min(options.limit ?? DEFAULT_RESULT_LIMIT, MAX_RESULT_LIMIT));
    const { sessionKey } = options;

    const cached = await this.cacheGet(sessionKey, normalized, limit);
    if (cached) {
      this.logger.info({ sessionKey, query: normalized, results: cached.length }, 'search cache hit');
      return { results: cached, cached: true };
    }

    const flightKey = `${sessionKey}\u0000${normalized}\u0000${limit}`;
    const pending = this.inFlight.get(flightKey);
    if (pending) {
      this.logger.info({ sessionKey, query: normalized }, 'search shares an in-flight request');
      return { results: await pending, cached: true };
    }
    const request = this.fetchAndStore(provider, query.trim(), normalized, limit, options);
    this.inFlight.set(flightKey, request);
    try {
      return { results: await request, cached: false };
    } finally {
      this.inFlight.delete(flightKey);
    }
  }

  async clearSession(sessionKey: string): Promise<void> {
    await this.cache.clear(sessionKey);
  }

  private async fetchAndStore(
    provider: SearchProvider,
    query: string,
    normalized: string,
    limit: number,
    options: { sessionKey: string; signal?: AbortSignal },
  ): Promise<SearchResult[]> {
    const started = performance.now();
    const results = await provider.search(query, { limit, signal: options.signal });
    this.logger.debug(
      {
        provider: provider.name,
        query: normalized,
        results: results.length,
        ms: Math.round(performance.now() - started),
      },
      'search done',
    );
    try {
      await this.cache.set(options.sessionKey, normalized, limit, results);
    } catch (err) {
      // A store outage costs the cache, not the search.
      this.logger.warn({ err }, 'search cache write failed');
    }
    return results;
  }

  private async cacheGet(
    sessionKey: string,
    normalized: string,
    limit: number,
  ): Promise<SearchResult[] | undefined> {
    try {
      return await this.cache.get(sessionKey, normalized, limit);
    } catch (err) {
      this.logger.warn({ err }, 'search cache read failed');
      return undefined;
    }
  }
}
