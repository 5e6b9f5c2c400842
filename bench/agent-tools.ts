/**
 * The agent's built-in tools as the read-the-results scenarios (15, 19) give them: the real
 * web_search against a Tavily-shaped fake at `searchBase`, the real fetch_url with loopback allowed
 * (the fakes serve the pages there), and the settings those two read.
 */
import Keyv from 'keyv';
import type { Config } from '../src/config/env.js';
import { silentLogger } from '../src/logger.js';
import { createSearchService } from '../src/search/search-service.js';
import { createDefaultTools } from '../src/tools/default-tools.js';
import { createToolRegistry } from '../src/tools/registry.js';
import type { ToolRegistry } from '../src/tools/types.js';

export function benchAgentTools(searchBase: string): ToolRegistry {
  const env = {
    SEARCH_PROVIDER: 'tavily',
    TAVILY_API_KEY: 'tvly-bench',
    TAVILY_BASE_URL: searchBase,
    SEARCH_TIMEOUT_MS: 10_000,
    SESSION_TTL: 3_600,
    FETCH_URL_POLICY: 'provenance',
    TIMEZONE: 'UTC',
  } as unknown as Config['env'];
  const searchService = createSearchService({ env }, { searchCache: new Keyv() }, silentLogger);
  return createToolRegistry(
    createDefaultTools({ search: searchService, config: { env }, fetchUrl: { allowPrivate: true } }),
    { logger: silentLogger },
  );
}
