/**
 * Agent mode (SPEC §5, seeds 000/001/003): the function-call model runs the ReAct tool phase, then
 * the answer model writes the final answer from the numbered observations, streamed. Limits,
 * evaluation, loop detection, model phases, statistics and the trace are all handled here or in
 * the small modules this file wires together.
 */
import { LlmError, isAbortError } from '../../errors.js';
import { joinText, phrase } from '../../i18n/phrase.js';
import { userMessage } from '../../i18n/user-message.js';
import type { ChatMessage, LlmClient } from '../../llm/types.js';
import { SourceRegistry, linkCitations } from '../../search/citations.js';
import { finishStats } from '../turn/finish-stats.js';
import type { ModeRunner, TurnContext, TurnResult } from '../types.js';
import type { Locale } from '../../surface.js';
import { turnToolContext } from '../turn/turn-tool-context.js';
import { type FinishReason, TraceRecorder } from '../turn/agent-trace.js';
import type { ResultEvaluator } from './evaluate-results.js';
import { languageName } from '../turn/write-answer.js';
import { newToolPhaseState, runToolPhase } from './tool-phase.js';
import { ANSWER_GRACE_MS, answerBudget, type DeadlineClock, WALL_CLOCK } from '../turn/answer-budget.js';
import { emitNotice } from '../turn/emit-notice.js';
import { emitAnswerHandOver } from '../turn/answer-hand-over.js';
import { UsageTracker } from '../turn/usage-tracker.js';
import { writeAnswer } from '../turn/write-answer.js';
import { withDeadline } from '../../llm/turn-deadline.js';

export interface AgentExecutorOptions {
  /** The model that reasons and decides the tool calls. */
  function_call_llm: LlmClient;
  /** The model that writes the answer; defaults to `function_call_llm` (single-model behaviour). */
  answer_llm?: LlmClient;
  /** AGENT_MAX_ITERATIONS: function-call model calls at most. */
  maxIterations: number;
  /** AGENT_MAX_EXECUTION_TIME in ms: the whole tool phase is aborted after it. */
  maxExecutionMs: number;
  /** AGENT_MIN_RESULT_CHARS: less gathered text than this → keep searching. */
  minResultChars: number;
  /** AGENT_MAX_TOOL_CALLS: total tool calls after which the loop stops. */
  maxToolCalls: number;
  /**
   * Stop the loop as soon as the gathered results reach `minResultChars` (seed 001's "may stop
   * early", taken strictly). Default false: the evaluation is shown and the function-call model
   * decides, so a question that needs a second, different search gets it.
   */
  stopWhenSufficient?: boolean;
  /** Decides after each round whether to go on; the count limit still applies. */
  evaluator?: ResultEvaluator;
  /** AGENT_VERBOSE: log every thought, action, tool input and output at info level. */
  verbose?: boolean;
  /** AGENT_READ_RESULTS: result pages read per search, in parallel, in the same round (0: none). */
  readResults?: number;
  /** Budget of the answer call after a timeout (default ANSWER_GRACE_MS). */
  answerGraceMs?: number;
  /** What the time limit is measured with (default the wall clock). */
  clock?: DeadlineClock;
}

/**
 * The lead of the sources-only answer as history keeps it (the model reads it on later turns), in
 * the turn's language; the user sees the catalog's `agent.partial-results`, the same words.
 */
const PARTIAL_RESULTS_FOR_HISTORY: Readonly<Record<Locale, (count: number) => string>> = {
  en: (count) => `Sources found before the error (${count}):`,
  zh: (count) => `出错前找到的来源（${count} 条）：`,
};

export interface AgentExecutor {
  run(ctx: TurnContext): Promise<TurnResult>;
}

/** Options from the configuration and the channel's models (what `runAgent` uses). */
export function agentOptionsFromContext(ctx: TurnContext): AgentExecutorOptions {
  const env = ctx.config.env;
  return {
    function_call_llm: ctx.llm.tool,
    answer_llm: ctx.llm.answer,
    maxIterations: env.AGENT_MAX_ITERATIONS,
    maxExecutionMs: env.AGENT_MAX_EXECUTION_TIME * 1000,
    minResultChars: env.AGENT_MIN_RESULT_CHARS,
    maxToolCalls: env.AGENT_MAX_TOOL_CALLS,
    verbose: env.AGENT_VERBOSE,
    readResults: env.AGENT_READ_RESULTS,
  };
}

export function createAgentExecutor(options: AgentExecutorOptions): AgentExecutor {
  const toolLlm = options.function_call_llm;
  const answerLlm = options.answer_llm ?? toolLlm;
  return {
    async run(ctx) {
      const { emit, locale } = ctx;
      const logger = ctx.logger.child({ mode: 'agent', conversation: ctx.message.conversationId });
      const tracker = new UsageTracker();
      const trace = new TraceRecorder('agent');
      const sources = new SourceRegistry();
      const state = newToolPhaseState();
      const question = ctx.message.text;
      let finishReason: FinishReason;

      // The time limit is merged with Stop: either aborts the in-flight model call and tools.
      const clock = options.clock ?? WALL_CLOCK;
      const deadlineAt = clock.now() + options.maxExecutionMs;
      const deadline = clock.timeout(options.maxExecutionMs);
      const signal = withDeadline(AbortSignal.any([ctx.signal, deadline]), deadlineAt);
      const messages: ChatMessage[] = [
        { role: 'system', content: agentSystemPrompt(ctx, toolLlm) },
        ...ctx.history,
        { role: 'user', content: question },
      ];

      emit({ type: 'phase', role: 'function_call', label: toolLlm.label });
      if (!ctx.search.available)
        emitNotice(emit, 'notice-no-search', phrase('notice.search-unavailable-agent'));
      const toolPhaseStart = Date.now();
      try {
        await runToolPhase(
          {
            llm: toolLlm,
            tools: ctx.tools,
            messages,
            toolContext: turnToolContext(ctx, signal),
            signal,
            emit,
            locale,
            sources,
            tracker,
            trace,
            logger,
            verbose: options.verbose === true,
            maxIterations: options.maxIterations,
            maxToolCalls: options.maxToolCalls,
            minResultChars: options.minResultChars,
            ...(options.readResults ? { readResults: options.readResults } : {}),
            contextWindow: ctx.config.env.LLM_CONTEXT_WINDOW,
            stopWhenSufficient: options.stopWhenSufficient === true,
            formatToolError: (tool, error) => toolErrorPrompt(ctx, toolLlm, tool, error),
            ...(options.evaluator ? { evaluator: options.evaluator } : {}),
          },
          state,
        );
        finishReason = state.finishReason;
      } catch (err) {
        tracker.addPhase('tools', Date.now() - toolPhaseStart);
        if (ctx.signal.aborted) {
          // Stop: the user cancelled; no answer is written and nothing is shown as an error.
          return end('cancelled', '');
        }
        if (deadline.aborted && (isAbortError(err) || signal.aborted)) {
          finishReason = 'timeout';
          state.reason = phrase('notice.timeout', { seconds: Math.round(options.maxExecutionMs / 1000) });
          logger.warn(
            { ms: options.maxExecutionMs, iterations: state.iterations },
            'agent time limit reached',
          );
          trace.error('timeout');
          emitNotice(emit, 'notice-timeout', state.reason, 'warning');
        } else {
          return fail(err);
        }
      }
      if (finishReason !== 'timeout') tracker.addPhase('tools', Date.now() - toolPhaseStart);

      // ── Answer phase ───────────────────────────────────────────────────────
      // Why the loop stopped is always shown (seed 001 "评估结果展示"): with two models in the switch
      // notice; with one, in a closing evaluation step when the model itself ended a tool loop (the
      // limits and the built-in stops have shown their own step already).
      if (answerLlm === toolLlm && finishReason === 'answered' && state.toolCalls > 0) {
        emit({
          type: 'step-start',
          id: 'final-evaluation',
          kind: 'evaluation',
          title: phrase('step.evaluation'),
          body: joinText([state.reason, phrase('agent.answer-same-model', { model: answerLlm.label })], '\n'),
          status: 'info',
        });
        emit({ type: 'step-finish', id: 'final-evaluation', status: 'info', collapse: true });
      }
      emitAnswerHandOver(emit, { reason: state.reason, from: toolLlm, to: answerLlm });
      // The answer gets what is left of the time limit, but never less than the grace budget: a
      // tool phase that ended just before the limit must not leave the answer a few milliseconds.
      const answerSignal = answerBudget(
        ctx.signal,
        deadlineAt,
        options.answerGraceMs ?? ANSWER_GRACE_MS,
        clock,
      );
      const answerStart = Date.now();
      const answer = await writeAnswer({
        llm: answerLlm,
        prompts: ctx.prompts,
        history: ctx.history,
        question,
        observations: state.observations,
        contextWindow: ctx.config.env.LLM_CONTEXT_WINDOW,
        sources: sources.all(),
        locale,
        emit,
        signal: answerSignal,
        tracker,
        stepId: 'answer',
      });
      tracker.addPhase('answer', Date.now() - answerStart);
      emit({ type: 'status', text: null });
      if (answer.error !== undefined) {
        if (ctx.signal.aborted) return end('cancelled', answer.text);
        if (isAbortError(answer.error) && answer.text) {
          // The answer ran out of time midway: keep what streamed, say it was cut short.
          trace.error('answer timed out');
          emitNotice(emit, 'notice-answer-cut', phrase('notice.partial-answer'), 'warning');
          return end(finishReason === 'timeout' ? 'timeout' : 'error', answer.text);
        }
        return fail(answer.error, answer.text);
      }
      trace.addStep({ action: { type: 'final' }, elapsedMs: Date.now() - answerStart });
      if (options.verbose) logger.info({ answer: answer.raw, finishReason }, 'agent final answer');
      return end(finishReason, answer.text);

      function end(reason: FinishReason, text: string): TurnResult {
        emit({ type: 'status', text: null });
        const stats = finishStats(ctx, tracker);
        const finished = trace.finish(reason, text, tracker.totalUsage());
        logger.debug({ trace: finished }, 'agent trace');
        return { answer: text, stats, trace: finished };
      }

      function fail(err: unknown, partial = ''): TurnResult {
        const llmFailure = err instanceof LlmError;
        trace.error(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
        logger.error({ err, trace: trace.trace }, llmFailure ? 'agent stopped: model error' : 'agent failed');
        const message = llmFailure ? userMessage(err, { suggestChat: true }) : phrase('error.unexpected');
        // Seed 000 "异常恢复": return the intermediate result that exists — the sources found so far.
        const recovered = partial || intermediateResult();
        // An abort that is neither Stop nor the tool-phase limit is the answer running out of time.
        emit({ type: 'error', message: isAbortError(err) ? phrase('error.answer-timed-out') : message });
        return end('error', recovered);
      }

      /** The sources gathered before a failure, linked, as the answer; '' when there are none. */
      function intermediateResult(): string {
        const found = sources.all();
        if (found.length === 0) return '';
        const markers = found.map((s) => `[${s.n}]`).join('');
        const linked = linkCitations(` ${markers}`, found, locale);
        const lead = phrase('agent.partial-results', { count: found.length });
        emit({ type: 'answer', text: joinText([lead, linked.shown]), sources: linked.cited });
        return `${PARTIAL_RESULTS_FOR_HISTORY[locale](found.length)}${linked.text}`;
      }
    },
  };
}

/** The agent system prompt: the tools, and that tool output is data, never instructions. */
function agentSystemPrompt(ctx: TurnContext, llm: LlmClient): string {
  const definitions = ctx.tools.definitions();
  const toolList = definitions.map((d) => `- ${d.name}: ${d.description}`).join('\n') || '(none)';
  return ctx.prompts.render(
    'agent.system',
    {
      tools: toolList,
      tool_definitions: toolList,
      tool_names: definitions.map((d) => d.name).join(', '),
      date: new Date().toISOString().slice(0, 10),
      locale: ctx.locale,
      language: languageName(ctx.locale),
      max_iterations: ctx.config.env.AGENT_MAX_ITERATIONS,
    },
    llm.config.provider,
  );
}

/** The `error` prompt for a failed tool call; the plain error when the template cannot render. */
function toolErrorPrompt(ctx: TurnContext, llm: LlmClient, tool: string, error: string): string {
  try {
    return ctx.prompts.render('error', { tool, error }, llm.config.provider);
  } catch (err) {
    ctx.logger.warn({ err }, 'error prompt could not be rendered; sending the plain tool error');
    return error;
  }
}

/** Agent mode as the turn runner calls it: models and limits from the channel and configuration. */
export const runAgent: ModeRunner = (ctx) => createAgentExecutor(agentOptionsFromContext(ctx)).run(ctx);
