/**
 * Decides after each round of tool calls whether the loop goes on (seed 001): by count (total tool
 * calls reached the maximum → stop), by quality (results empty or shorter than the threshold → keep
 * searching; sufficient → stop early and let the answer model write), or by a custom function.
 */
import type { Locale } from '../../surface.js';
import { t } from './agent-strings.js';
import { type Observation, resultChars } from './observations.js';

export interface EvaluationState {
  /** Iterations (function-call model calls) so far, including this one. */
  iteration: number;
  /** Tool calls made so far in this turn. */
  totalToolCalls: number;
  /** Every observation of the turn so far (this round's included). */
  allObservations: Observation[];
  locale: Locale;
}

export interface Evaluation {
  decision: 'continue' | 'stop';
  /** Shown to the user in the Evaluation step. */
  reason: string;
  /** Why it stopped, for the trace (`sufficient`, `max_tool_calls`, or a custom evaluator's word). */
  code?: string;
}

/** A custom evaluator passed in code; `results` are this round's observations. */
export type ResultEvaluator = (
  results: Observation[],
  state: EvaluationState,
) => Evaluation | Promise<Evaluation>;

export interface EvaluationLimits {
  maxToolCalls: number;
  minResultChars: number;
}

/** The built-in evaluation: count first, then quality of everything gathered so far. */
export function defaultEvaluation(limits: EvaluationLimits, state: EvaluationState): Evaluation {
  const { locale } = state;
  if (state.totalToolCalls >= limits.maxToolCalls) {
    return {
      decision: 'stop',
      reason: t(locale, 'maxToolCalls')(limits.maxToolCalls),
      code: 'max_tool_calls',
    };
  }
  const chars = resultChars(state.allObservations);
  if (chars === 0 || chars < limits.minResultChars) {
    return {
      decision: 'continue',
      reason: t(locale, 'insufficient')(chars, limits.minResultChars),
      code: 'insufficient',
    };
  }
  return { decision: 'stop', reason: t(locale, 'sufficient'), code: 'sufficient' };
}

/**
 * Runs the custom evaluator when there is one. The count limit still applies: it is a safety
 * bound on cost, not a quality judgement a custom function should be able to lift.
 */
export async function evaluateRound(
  limits: EvaluationLimits,
  round: Observation[],
  state: EvaluationState,
  custom?: ResultEvaluator,
): Promise<Evaluation> {
  if (!custom) return defaultEvaluation(limits, state);
  if (state.totalToolCalls >= limits.maxToolCalls) return defaultEvaluation(limits, state);
  const verdict = await custom(round, state);
  return { code: verdict.code ?? (verdict.decision === 'stop' ? 'custom' : 'insufficient'), ...verdict };
}
