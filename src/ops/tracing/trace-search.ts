/**
 * Wraps the SearchService so every web search is a span under `parent` (the turn's span in chat
 * mode, the web_search tool call's in the agent): provider, whether the session cache answered,
 * how many results. The query is message text: on the span only with content capture on.
 */
import { type Context, SpanKind, type Tracer } from '@opentelemetry/api';
import { ScoutError } from '../../errors.js';
import type { SearchService } from '../../search/types.js';
import { SCOUT } from './genai.js';
import { spanned } from './spanned.js';

const errorCode = (err: unknown) => (err instanceof ScoutError ? err.code : 'unknown');

export function traceSearch(
  tracer: Tracer,
  capture?: (text: string) => string,
): (service: SearchService, parent: Context) => SearchService {
  return (service, parent) => {
    const provider = service.providerName;
    return {
      available: service.available,
      providerName: service.providerName,
      search: (query, options) =>
        spanned(
          tracer,
          parent,
          `search ${provider}`,
          {
            kind: SpanKind.CLIENT,
            attributes: {
              [SCOUT.searchProvider]: provider,
              ...(capture ? { [SCOUT.searchQuery]: capture(query) } : {}),
            },
            after: (span, outcome) =>
              span.setAttributes({
                [SCOUT.searchCached]: outcome.cached,
                [SCOUT.searchResults]: outcome.results.length,
              }),
            errorType: errorCode,
          },
          () => service.search(query, options),
        ),
      clearSession: (sessionKey) => service.clearSession(sessionKey),
    };
  };
}
