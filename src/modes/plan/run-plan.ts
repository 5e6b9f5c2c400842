/**
 * Plan mode (SPEC §6, seed 003): the planner model returns a JSON plan, Scout shows it and (where the
 * surface can ask) waits for Run / Cancel, runs the steps in order, then the answer model writes a
 * summary of all results with citations. Same time limit, statistics and trace as agent mode.
 */
import { LlmError, isAbortError } from '../../errors.js';
import { joinText, phrase } from '../../i18n/phrase.js';
import { userMessage } from '../../i18n/user-message.js';
import type { ChatMessage } from '../../llm/types.js';
import { SourceRegistry } from '../../search/citations.js';
import { type FinishReason, TraceRecorder } from '../turn/agent-trace.js';
import { emitNotice } from '../turn/emit-notice.js';
import { emitAnswerHandOver } from '../turn/answer-hand-over.js';
import { UsageTracker } from '../turn/usage-tracker.js';
import { languageName, writeAnswer } from '../turn/write-answer.js';
import { ANSWER_GRACE_MS, answerBudget, type DeadlineClock, WALL_CLOCK } from '../turn/answer-budget.js';
import { finishStats } from '../turn/finish-stats.js';
import type { ModeRunner, TurnContext, TurnResult } from '../types.js';
import { turnToolContext } from '../turn/turn-tool-context.js';
import type { PlanProposal } from './plan-types.js';
import { requestPlan } from './request-plan.js';
import { type PlanStepsResult, planLinesForModel, planStepTitle, runPlanSteps } from './run-plan-steps.js';
import { withDeadline } from '../../llm/turn-deadline.js';

export interface PlanRunOptions {
  /** Whole-run time limit in ms (AGENT_MAX_EXECUTION_TIME). */
  maxExecutionMs?: number;
  onStepError?: 'skip' | 'stop';
  answerGraceMs?: number;
  verbose?: boolean;
  /** What the time limit is measured with (default the wall clock). */
  clock?: DeadlineClock;
}

export function createPlanRunner(options: PlanRunOptions = {}): ModeRunner {
  return async (ctx: TurnContext): Promise<TurnResult> => {
    const { emit, locale } = ctx;
    const env = ctx.config.env;
    const maxExecutionMs = options.maxExecutionMs ?? env.AGENT_MAX_EXECUTION_TIME * 1000;
    const verbose = options.verbose ?? env.AGENT_VERBOSE;
    const logger = ctx.logger.child({ mode: 'plan', conversation: ctx.message.conversationId });
    const tracker = new UsageTracker();
    const trace = new TraceRecorder('plan');
    const sources = new SourceRegistry();
    const planner = ctx.llm.tool;
    const answerLlm = ctx.llm.answer;
    const clock = options.clock ?? WALL_CLOCK;
    const deadlineAt = clock.now() + maxExecutionMs;
    const deadline = clock.timeout(maxExecutionMs);
    const signal = withDeadline(AbortSignal.any([ctx.signal, deadline]), deadlineAt);
    const ran: PlanStepsResult = { observations: [], failed: [] };
    let finishReason: FinishReason = 'plan_completed';
    let plan: PlanProposal | undefined;

    const end = (reason: FinishReason, text: string): TurnResult => {
      emit({ type: 'status', text: null });
      const stats = finishStats(ctx, tracker);
      return { answer: text, stats, trace: trace.finish(reason, text, tracker.totalUsage()) };
    };
    const fail = (err: unknown, partial = ''): TurnResult => {
      trace.error(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
      logger.error({ err, trace: trace.trace }, 'plan failed');
      emit({
        type: 'error',
        message:
          err instanceof LlmError ? userMessage(err, { suggestChat: true }) : phrase('error.unexpected'),
      });
      return end('error', partial);
    };

    // ── Planning ─────────────────────────────────────────────────────────────
    emit({ type: 'phase', role: 'planner', label: planner.label });
    emit({ type: 'status', text: phrase('status.thinking') });
    const planStart = Date.now();
    try {
      const requested = await requestPlan({
        llm: planner,
        messages: plannerMessages(ctx),
        tools: ctx.tools,
        signal,
        tracker,
      });
      tracker.addPhase('plan', Date.now() - planStart);
      for (const problem of requested.problems) trace.error(`invalid plan: ${problem}`);
      if (!requested.plan) {
        emit({ type: 'error', message: phrase('error.plan-invalid', { problem: requested.error ?? '' }) });
        return end('plan_invalid', '');
      }
      plan = requested.plan;
    } catch (err) {
      if (ctx.signal.aborted) return end('cancelled', '');
      return fail(err);
    }

    emit({
      type: 'step-start',
      id: 'plan',
      kind: 'plan',
      title: phrase('step.plan'),
      body: joinText(plan.steps.map(planStepTitle), '\n'),
      status: 'info',
    });
    emit({ type: 'step-finish', id: 'plan', status: 'info', collapse: false });
    if (ctx.confirmPlan) {
      emit({ type: 'status', text: null });
      const askedAt = Date.now();
      const accepted = await ctx.confirmPlan(plan);
      tracker.addUserWait(Date.now() - askedAt);
      if (!accepted) {
        emitNotice(emit, 'notice-plan-cancelled', phrase('plan.cancelled'));
        return end('plan_cancelled', '');
      }
    }

    // ── Steps ────────────────────────────────────────────────────────────────
    emit({ type: 'status', text: phrase('status.searching') });
    const stepsStart = Date.now();
    try {
      await runPlanSteps(
        {
          plan,
          tools: ctx.tools,
          toolContext: turnToolContext(ctx, signal),
          onStepError: options.onStepError ?? env.PLAN_ON_STEP_ERROR,
          emit,
          sources,
          tracker,
          trace,
          logger,
          verbose,
        },
        ran,
      );
      if (ran.stoppedAt !== undefined) {
        finishReason = 'plan_stopped';
        emitNotice(
          emit,
          'notice-plan-stopped',
          phrase('notice.plan-stopped', { step: ran.stoppedAt }),
          'warning',
        );
      }
    } catch (err) {
      if (ctx.signal.aborted) return end('cancelled', '');
      if (!deadline.aborted) return fail(err);
      finishReason = 'timeout';
      trace.error('timeout');
      emitNotice(
        emit,
        'notice-timeout',
        phrase('notice.timeout', { seconds: Math.round(maxExecutionMs / 1000) }),
        'warning',
      );
    }
    tracker.addPhase('steps', Date.now() - stepsStart);

    // ── Summary ──────────────────────────────────────────────────────────────
    emitAnswerHandOver(emit, { reason: phrase('agent.plan-done'), from: planner, to: answerLlm });
    const answerStart = Date.now();
    const answerSignal = answerBudget(
      ctx.signal,
      deadlineAt,
      options.answerGraceMs ?? ANSWER_GRACE_MS,
      clock,
    );
    const answer = await writeAnswer({
      llm: answerLlm,
      prompts: ctx.prompts,
      history: ctx.history,
      question: ctx.message.text,
      observations: ran.observations,
      contextWindow: env.LLM_CONTEXT_WINDOW,
      sources: sources.all(),
      locale,
      emit,
      signal: answerSignal,
      tracker,
      variables: { plan: planLinesForModel(plan, locale) },
      promptName: 'summary.system',
      plan: planForSummary(plan, ran),
      stepId: 'summary',
    });
    tracker.addPhase('answer', Date.now() - answerStart);
    if (answer.error !== undefined) {
      if (ctx.signal.aborted) return end('cancelled', answer.text);
      if (isAbortError(answer.error) && answer.text) {
        emitNotice(emit, 'notice-answer-cut', phrase('notice.partial-answer'), 'warning');
        return end(finishReason, answer.text);
      }
      return fail(answer.error, answer.text);
    }
    trace.addStep({ action: { type: 'final' }, elapsedMs: Date.now() - answerStart });
    return end(finishReason, answer.text);
  };
}

/** The plan as the summary model reads it: each step with what became of it (English, model-facing). */
export function planForSummary(plan: PlanProposal, ran: PlanStepsResult): string {
  const done = new Set(ran.observations.map((o) => Number(/^step (\d+):/.exec(o.input)?.[1])));
  const failed = new Set(ran.failed);
  return plan.steps
    .map((s) => {
      const status = failed.has(s.step) ? 'failed' : done.has(s.step) ? 'done' : 'not run';
      return `${s.step}. ${s.description} (${s.tool}) — ${status}`;
    })
    .join('\n');
}

/** The planner prompt lists every registered tool with its parameters (JSON Schema). */
function plannerMessages(ctx: TurnContext): ChatMessage[] {
  const definitions = ctx.tools.definitions();
  const toolList = definitions
    .map((d) => `- ${d.name}: ${d.description}\n  parameters: ${JSON.stringify(d.parameters)}`)
    .join('\n');
  const system = ctx.prompts.render(
    'plan.system',
    {
      tools: toolList || '(none)',
      tool_definitions: toolList || '(none)',
      tool_names: definitions.map((d) => d.name).join(', '),
      user_message: ctx.message.text,
      question: ctx.message.text,
      date: new Date().toISOString().slice(0, 10),
      locale: ctx.locale,
      language: languageName(ctx.locale),
    },
    ctx.llm.tool.config.provider,
  );
  return [{ role: 'system', content: system }, ...ctx.history, { role: 'user', content: ctx.message.text }];
}

/** Plan mode as the turn runner calls it: limits and the step-error policy from the configuration. */
export const runPlan: ModeRunner = createPlanRunner();
