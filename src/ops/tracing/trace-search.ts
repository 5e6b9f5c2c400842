/**
 * Wraps the SearchService so every web search is a span under `parent` (the turn's span in chat
 * mode, the web_search tool call's in the agent): provider, whether the session cache answered,
 * how many results. The query is message text: on the span only with content capture on.
 */
import { type Context, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ScoutError } from '../../errors.js';
import type { SearchService } from '../../search/types.js';
import { ERROR_TYPE, SCOUT } from './genai.js';

export function traceSearch(
  tracer: Tracer,
  capture?: (text: string) => string,
): (service: SearchService, parent: Context) => SearchService {
  return (service, parent) => {
    const provider = service.providerName;
    return {
      available: service.available,
      providerName: service.providerName,
      async search(query, options) {
        const span = tracer.startSpan(
          `search ${provider}`,
          {
            kind: SpanKind.CLIENT,
            attributes: {
              [SCOUT.searchProvider]: provider,
              ...(capture ? { [SCOUT.searchQuery]: capture(query) } : {}),
            },
          },
          parent,
        );
        try {
          const outcome = await service.search(query, options);
          span.setAttributes({
            [SCOUT.searchCached]: outcome.cached,
            [SCOUT.searchResults]: outcome.results.length,
          });
          return outcome;
        } catch (err) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          span.setAttribute(ERROR_TYPE, err instanceof ScoutError ? err.code : 'unknown');
          throw err;
        } finally {
          span.end();
        }
      },
      clearSession: (sessionKey) => service.clearSession(sessionKey),
    };
  };
}
