/**
 * The agent's built-in tools as the read-the-results scenarios (15, 19) give them: the real
 * web_search against a Tavily-shaped fake at `searchBase`, the real fetch_url with loopback allowed
 * (the fakes serve the pages there), and the settings those two read; and one search round as the
 * agent runs it with them.
 */
import Keyv from 'keyv';
import type { Config } from '../src/config/env.js';
import { silentLogger } from '../src/logger.js';
import { runToolCalls, type ToolRoundResult } from '../src/modes/agent/run-tool-calls.js';
import { TraceRecorder } from '../src/modes/turn/agent-trace.js';
import { UsageTracker } from '../src/modes/turn/usage-tracker.js';
import { SourceRegistry } from '../src/search/citations.js';
import { createSearchService } from '../src/search/search-service.js';
import { createDefaultTools } from '../src/tools/default-tools.js';
import { createToolRegistry } from '../src/tools/registry.js';
import type { ToolRegistry } from '../src/tools/types.js';
import { UrlProvenance } from '../src/tools/url-provenance.js';

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

/**
 * One search round as the agent runs it (runToolCalls): web_search for `query`, then the top
 * `readCount` results read with fetch_url (0: none, the snippets alone).
 */
export function benchSearchRound(
  tools: ToolRegistry,
  round: { query: string; sessionKey: string; readCount: number; signal?: AbortSignal },
): Promise<ToolRoundResult[]> {
  return runToolCalls(
    [{ id: 's', name: 'web_search', arguments: JSON.stringify({ query: round.query }) }],
    new Set(),
    {
      tools,
      toolContext: {
        sessionKey: round.sessionKey,
        signal: round.signal ?? new AbortController().signal,
        provenance: new UrlProvenance(),
        question: 'How many passengers did the harbour ferry carry on its busiest day?',
      },
      emit: () => {},
      locale: 'en',
      numbering: new SourceRegistry(),
      tracker: new UsageTracker(),
      trace: new TraceRecorder('agent'),
      logger: silentLogger,
      verbose: false,
      stepPrefix: 'r1',
      ...(round.readCount > 0 ? { readResults: { count: round.readCount, read: new Set<string>() } } : {}),
    },
  );
}
