/** Everything `buildScout` needs to feed the metrics: turn hooks, model-client and search wrappers. */
import type { BuildOptions } from '../core/build-scout.js';
import { instrumentLlm } from './instrument-llm.js';
import { instrumentSearch } from './instrument-search.js';
import type { ScoutMetrics } from './metrics.js';
import { metricsObserver } from './metrics-observer.js';

export function instrumentation(
  metrics: ScoutMetrics,
): Pick<BuildOptions, 'observer' | 'wrapLlm' | 'wrapSearch'> {
  return {
    observer: metricsObserver(metrics),
    wrapLlm: instrumentLlm(metrics),
    wrapSearch: instrumentSearch(metrics),
  };
}
