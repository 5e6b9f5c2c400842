/**
 * Turns the core's turn hooks into metrics: one `turns_total` and one latency sample per turn, and
 * an `errors_total{kind}` for each failed turn.
 */
import type { TurnObserver } from '../core/scout-deps.js';
import { LlmError, ScoutError } from '../errors.js';
import type { ScoutMetrics } from './metrics.js';

/**
 * The error kind a failed turn is counted under. Modes that catch their own failure and report it
 * on the view end with outcome "error" but no error object: those count as "reported".
 */
export function errorKind(error: unknown): string {
  if (error === undefined) return 'reported';
  if (error instanceof LlmError) return 'llm';
  if (error instanceof ScoutError) return error.code; // search, store, config, …
  return 'internal';
}

export function metricsObserver(metrics: ScoutMetrics, next?: TurnObserver): TurnObserver {
  return {
    onTurnStart(info) {
      next?.onTurnStart?.(info);
    },
    onTurnEnd(info) {
      metrics.recordTurn(info.mode, info.outcome, info.ms);
      if (info.outcome === 'error') metrics.recordError(errorKind(info.error));
      next?.onTurnEnd?.(info);
    },
  };
}
