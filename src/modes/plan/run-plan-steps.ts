import type { SourceRegistry } from '../../search/citations.js';
import { type Phrase, phrase } from '../../i18n/phrase.js';
import type { Locale } from '../../surface.js';
import { type Observation, toObservation } from '../turn/observations.js';
import type { ToolRunEnv } from '../turn/tool-run-env.js';
import type { PlanProposal, PlanStep } from './plan-types.js';

const RESULT_PREVIEW_CHARS = 400;

export interface PlanStepsInput extends ToolRunEnv {
  plan: PlanProposal;
  onStepError: 'skip' | 'stop';
  sources: SourceRegistry;
}

export interface PlanStepsResult {
  observations: Observation[];
  /** The step number that stopped the plan (stop policy), if any. */
  stoppedAt?: number;
  failed: number[];
}

export function planStepId(step: PlanStep): string {
  return `plan-step-${step.step}`;
}

export function planStepTitle(step: PlanStep): Phrase {
  return phrase('step.plan-step', { step: step.step, description: step.description, tool: step.tool });
}

/**
 * The plan's steps as the summary prompt's `{plan}` reads them, one a line, in the turn's language:
 * the same words the Plan step shows (`step.plan-step`), written here because what a model reads is
 * not said from the user catalog.
 */
export function planLinesForModel(plan: PlanProposal, locale: Locale): string {
  return plan.steps
    .map((s) =>
      locale === 'zh'
        ? `${s.step}. ${s.description}（${s.tool}）`
        : `${s.step}. ${s.description} (${s.tool})`,
    )
    .join('\n');
}

/** `result` is filled as steps finish, so a caller keeps the finished steps when the time limit aborts. */
export async function runPlanSteps(
  input: PlanStepsInput,
  result: PlanStepsResult = { observations: [], failed: [] },
): Promise<PlanStepsResult> {
  const { emit, plan } = input;
  for (const step of plan.steps) {
    emit({
      type: 'step-start',
      id: planStepId(step),
      kind: 'plan-step',
      title: planStepTitle(step),
      status: 'pending',
    });
  }
  for (const [index, step] of plan.steps.entries()) {
    const id = planStepId(step);
    if (input.toolContext.signal.aborted) throw input.toolContext.signal.reason ?? new Error('aborted');
    emit({ type: 'step-update', id, status: 'running' });
    const args = JSON.stringify(step.parameters ?? {});
    if (input.verbose) input.logger.info({ step: step.step, tool: step.tool, input: args }, 'plan step');
    const started = Date.now();
    const output = await input.tools.execute(step.tool, args, input.toolContext);
    const ms = Date.now() - started;
    input.tracker.toolCalls += 1;
    if (step.tool === 'web_search') input.tracker.searches += 1;
    input.trace.recordTool(step.tool, ms, output.isError === true);
    const observation = toObservation(
      step.tool,
      `step ${step.step}: ${step.description}`,
      output,
      input.sources,
    );
    input.trace.addStep({
      thought: step.description,
      action: { type: 'action', tool: step.tool, args: step.parameters ?? {} },
      observation: observation.text,
      toolOutput: { sources: output.sources?.length ?? 0, cached: output.cached === true },
      elapsedMs: ms,
      ...(output.isError ? { error: output.text } : {}),
    });
    if (input.verbose) input.logger.info({ step: step.step, output: observation.text }, 'plan step result');
    if (input.toolContext.signal.aborted) throw input.toolContext.signal.reason ?? new Error('aborted');

    if (!output.isError) {
      result.observations.push(observation);
      const preview =
        observation.text.length > RESULT_PREVIEW_CHARS
          ? `${observation.text.slice(0, RESULT_PREVIEW_CHARS)}…`
          : observation.text;
      emit({ type: 'step-finish', id, status: 'done', body: preview });
      continue;
    }
    result.failed.push(step.step);
    if (input.onStepError === 'skip') {
      emit({
        type: 'step-finish',
        id,
        status: 'failed',
        body: phrase('step.plan-step-skipped', { error: output.text }),
        collapse: false,
      });
      continue;
    }
    emit({ type: 'step-finish', id, status: 'failed', body: output.text, collapse: false });
    for (const rest of plan.steps.slice(index + 1)) {
      emit({
        type: 'step-finish',
        id: planStepId(rest),
        status: 'skipped',
        body: phrase('step.plan-not-run'),
      });
    }
    result.stoppedAt = step.step;
    break;
  }
  return result;
}
