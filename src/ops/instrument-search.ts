/**
 * Wraps the SearchService so every search is counted (by outcome) and cache hits are visible.
 * Passed to `buildScout({ wrapSearch })`.
 */
import type { SearchService } from '../search/types.js';
import type { ScoutMetrics } from './metrics.js';

export function instrumentSearch(metrics: ScoutMetrics): (service: SearchService) => SearchService {
  return (service) => {
    const provider = service.providerName;
    return {
      available: service.available,
      providerName: service.providerName,
      async search(query, options) {
        try {
          const outcome = await service.search(query, options);
          metrics.searchCalls.inc({ provider, outcome: 'ok' });
          if (outcome.cached) metrics.searchCacheHits.inc({ provider });
          return outcome;
        } catch (err) {
          metrics.searchCalls.inc({ provider, outcome: 'error' });
          throw err;
        }
      },
      clearSession: (sessionKey) => service.clearSession(sessionKey),
    };
  };
}
