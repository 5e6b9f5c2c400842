/**
 * Decides after each round of tool calls whether the loop goes on (seed 001): by count (total tool
 * calls reached the maximum → stop), by quality (results empty or shorter than the threshold → keep
 * searching; sufficient → *may* stop early), or by a custom function.
 *
 * "May" is the seed's word ("如果结果足够，可以提前停止循环"). By default sufficient results do not
 * end the loop by themselves: 200 characters is what a single search nearly always returns, so
 * stopping there would cut off every question that needs a second, different search. Instead the
 * evaluation is shown and the function-call model decides: it ends the loop by replying without a
 * tool call. `stopWhenSufficient` restores the strict rule (stop as soon as results are sufficient).
 */
import { type UserText, phrase } from '../../i18n/phrase.js';
import { type Observation, resultChars } from '../turn/observations.js';

export interface EvaluationState {
  /** Iterations (function-call model calls) so far, including this one. */
  iteration: number;
  /** Tool calls made so far in this turn. */
  totalToolCalls: number;
  /** Every observation of the turn so far (this round's included). */
  allObservations: Observation[];
}

export interface Evaluation {
  decision: 'continue' | 'stop';
  /** Shown to the user in the Evaluation step: a phrase, or a custom evaluator's own words. */
  reason: UserText;
  /**
   * Why, for the trace and the stop notice: `sufficient`, `insufficient`, `max_tool_calls`, or a
   * custom evaluator's word. A `continue` with `sufficient` means "enough gathered; the model decides".
   */
  code?: string;
  /**
   * A note for the function-call model (English, not shown to the user), appended after this
   * round's tool results: e.g. "the results are thin, search again with another query".
   */
  hint?: string;
}

/** A custom evaluator passed in code; `results` are this round's observations. */
export type ResultEvaluator = (
  results: Observation[],
  state: EvaluationState,
) => Evaluation | Promise<Evaluation>;

export interface EvaluationLimits {
  maxToolCalls: number;
  minResultChars: number;
  /** Stop the loop as soon as the results are sufficient (default: let the model decide). */
  stopWhenSufficient?: boolean;
}

/** What the function-call model reads when the results so far are empty or too short. */
export const INSUFFICIENT_HINT =
  "Scout's evaluation: the results gathered so far are empty or too short to answer well. " +
  'If the question needs more, search again with a different, more specific query (other keywords, ' +
  'another language, a narrower topic); do not repeat a query you already ran.';

/** The built-in evaluation: count first, then quality of everything gathered so far. */
export function defaultEvaluation(limits: EvaluationLimits, state: EvaluationState): Evaluation {
  if (state.totalToolCalls >= limits.maxToolCalls) {
    return {
      decision: 'stop',
      reason: phrase('agent.max-tool-calls', { count: limits.maxToolCalls }),
      code: 'max_tool_calls',
    };
  }
  const chars = resultChars(state.allObservations);
  if (chars === 0 || chars < limits.minResultChars) {
    return {
      decision: 'continue',
      reason: phrase('agent.insufficient', { chars, min: limits.minResultChars }),
      code: 'insufficient',
      hint: INSUFFICIENT_HINT,
    };
  }
  if (limits.stopWhenSufficient) {
    return { decision: 'stop', reason: phrase('agent.sufficient'), code: 'sufficient' };
  }
  return {
    decision: 'continue',
    reason: phrase('agent.sufficient-model-decides', { chars }),
    code: 'sufficient',
  };
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
