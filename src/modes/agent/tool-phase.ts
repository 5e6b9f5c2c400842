/**
 * The ReAct tool phase (seeds 000, 001): the function-call model reasons and calls tools, the tools
 * run, their results go back as delimited tool messages, and the loop repeats until the model needs
 * no more tools, the evaluation stops it, a loop is detected, the iteration limit is reached or the
 * results fill the context window even with the oldest pages shortened (tool-results-window.ts).
 * Aborts (Stop, time limit) and LLM errors propagate to the executor, which decides what to show.
 */
import { type UserText, phrase } from '../../i18n/phrase.js';
import type { ChatMessage, LlmClient } from '../../llm/types.js';
import type { SourceRegistry } from '../../search/citations.js';
import type { Locale } from '../../surface.js';
import type { FinishReason } from '../turn/agent-trace.js';
import { consumeStream } from '../turn/consume-stream.js';
import { type ResultEvaluator, evaluateRound } from './evaluate-results.js';
import { LoopDetector } from './loop-detector.js';
import type { Observation } from '../turn/observations.js';
import { promptRoom } from '../turn/context-room.js';
import { ToolResultsWindow, toolResultContent } from './tool-results-window.js';
import { runToolCalls } from './run-tool-calls.js';
import { emitNotice } from '../turn/emit-notice.js';
import type { ToolRunEnv } from '../turn/tool-run-env.js';
import { ThinkingStep } from '../turn/thinking-step.js';

export interface ToolPhaseInput extends ToolRunEnv {
  llm: LlmClient;
  /** System prompt + history + the user's message. Grows with assistant and tool messages. */
  messages: ChatMessage[];
  signal: AbortSignal;
  /** The turn's language, for what the model reads (the note on a repeated call); never user text. */
  locale: Locale;
  sources: SourceRegistry;
  maxIterations: number;
  maxToolCalls: number;
  minResultChars: number;
  /** Stop as soon as the results are sufficient instead of letting the model decide. */
  stopWhenSufficient?: boolean;
  evaluator?: ResultEvaluator;
  /**
   * What the model reads for a failed tool call (the `error` prompt); defaults to the tool's own
   * error text. The trace and the UI keep the plain error.
   */
  formatToolError?: (tool: string, error: string) => string;
  /** AGENT_READ_RESULTS: result pages read per search in the same round (0: snippets only). */
  readResults?: number;
  /**
   * LLM_CONTEXT_WINDOW: before each request the oldest pages are shortened until the conversation
   * fits, and the loop ends when even that is not enough. Unset: the conversation is sent as it is.
   */
  contextWindow?: number;
}

export interface ToolPhaseState {
  observations: Observation[];
  iterations: number;
  toolCalls: number;
  finishReason: FinishReason;
  /** Why the loop stopped, for the model-switch step (shown to the user, never sent to the model). */
  reason: UserText;
}

export function newToolPhaseState(): ToolPhaseState {
  return { observations: [], iterations: 0, toolCalls: 0, finishReason: 'answered', reason: '' };
}

/** Runs the loop, updating `state` as it goes so an abort still leaves the gathered results. */
export async function runToolPhase(input: ToolPhaseInput, state: ToolPhaseState): Promise<void> {
  const { emit, locale, logger, verbose } = input;
  const log = (data: Record<string, unknown>, msg: string) =>
    verbose ? logger.info(data, msg) : logger.debug(data, msg);
  const definitions = input.tools.definitions();
  const detector = new LoopDetector();
  const readResults = input.readResults ? { count: input.readResults, read: new Set<string>() } : undefined;
  const resultsWindow =
    input.contextWindow !== undefined
      ? new ToolResultsWindow(promptRoom(input.contextWindow, input.llm.config), definitions)
      : undefined;
  // The last evaluation found the results sufficient: a model that then stops is stopping for that.
  let sufficient = false;

  for (let iteration = 1; iteration <= input.maxIterations; iteration++) {
    const fit = resultsWindow ? await resultsWindow.fit(input.messages) : 'fits';
    if (fit === 'full') return stopForFullContext(input, state);
    if (fit === 'shortened') log({ iteration }, 'agent tool results shortened to fit the context window');
    state.iterations = iteration;
    emit({ type: 'status', text: phrase('status.thinking') });
    const thinking = new ThinkingStep(`r${iteration}-thinking`, emit);
    const started = Date.now();
    let decision: Awaited<ReturnType<typeof consumeStream>>;
    try {
      decision = await consumeStream(
        input.llm,
        'function_call',
        {
          messages: input.messages,
          ...(definitions.length > 0 ? { tools: definitions, toolChoice: 'auto' as const } : {}),
          signal: input.signal,
        },
        input.tracker,
        { onReasoning: (text) => thinking.append(text), onText: (text) => thinking.append(text) },
      );
      thinking.close();
    } catch (err) {
      thinking.close(true);
      throw err;
    }
    const thought = [decision.reasoning, decision.text].filter((s) => s.trim() !== '').join('\n\n');
    log({ iteration, thought, toolCalls: decision.toolCalls.map((c) => c.name) }, 'agent thought');

    if (decision.toolCalls.length === 0) {
      input.trace.addStep({
        ...(thought ? { thought } : {}),
        action: { type: 'final' },
        elapsedMs: Date.now() - started,
      });
      state.finishReason = 'answered';
      state.reason = phrase(sufficient ? 'agent.sufficient-and-done' : 'agent.no-more-tools');
      return;
    }

    // Every assistant message with tool calls keeps its reasoning: DeepSeek's thinking mode
    // rejects a later request without it, and Anthropic needs the thinking block back.
    input.messages.push({
      role: 'assistant',
      content: decision.text,
      toolCalls: decision.toolCalls,
      ...(decision.reasoning ? { reasoning: decision.reasoning } : {}),
      ...(decision.reasoningSignature ? { reasoningSignature: decision.reasoningSignature } : {}),
      ...(decision.reasoningBlocks ? { reasoningBlocks: decision.reasoningBlocks } : {}),
      ...(decision.providerMetadata ? { providerMetadata: decision.providerMetadata } : {}),
    });

    const { fresh, repeated } = detector.partition(decision.toolCalls);
    if (fresh.length === 0) {
      log({ iteration, calls: decision.toolCalls }, 'agent loop detected: repeated calls');
      return stopForLoop(input, state, thought);
    }

    emit({ type: 'status', text: phrase('status.searching') });
    const sizeBefore = input.sources.size;
    const results = await runToolCalls(decision.toolCalls, new Set(repeated), {
      tools: input.tools,
      toolContext: input.toolContext,
      emit,
      locale,
      numbering: input.sources,
      tracker: input.tracker,
      trace: input.trace,
      logger,
      verbose,
      stepPrefix: `r${iteration}`,
      ...(thought ? { thought } : {}),
      ...(readResults ? { readResults } : {}),
    });
    for (const result of results) {
      const formatError = input.formatToolError;
      const errorPrompt =
        formatError && result.output.isError && !result.repeated
          ? formatError(result.call.name, result.output.text)
          : undefined;
      const written = errorPrompt === undefined ? [result.observation, ...(result.pages ?? [])] : [];
      const message = {
        role: 'tool' as const,
        toolCallId: result.call.id,
        name: result.call.name,
        content: errorPrompt ?? toolResultContent(written),
      };
      input.messages.push(message);
      resultsWindow?.track(message, written);
      if (!result.repeated) state.observations.push(result.observation, ...(result.pages ?? []));
    }
    state.toolCalls += fresh.length;
    if (input.signal.aborted) throw input.signal.reason ?? new Error('aborted');

    const ran = results.filter((r) => !r.repeated);
    const roundObservations = ran.map((r) => r.observation);
    const broughtSources = ran.some((r) => !r.output.isError && r.output.sources !== undefined);
    // A round makes progress when it brings new material: a new source, or page text not read
    // before (reading a page on with `part` brings the same URL again). Remembered every round, so
    // the first round's pages count as read.
    const newText = detector.readNewText(ran.flatMap((r) => [r.observation, ...(r.pages ?? [])]));
    const newSource = input.sources.size > sizeBefore;
    if (iteration > 1 && broughtSources && sizeBefore > 0 && !newSource && !newText) {
      log({ iteration }, 'agent loop detected: nothing new in the round');
      return stopForLoop(input, state, thought);
    }

    const evaluation = await evaluateRound(
      {
        maxToolCalls: input.maxToolCalls,
        minResultChars: input.minResultChars,
        stopWhenSufficient: input.stopWhenSufficient === true,
      },
      roundObservations,
      { iteration, totalToolCalls: state.toolCalls, allObservations: state.observations },
      input.evaluator,
    );
    const evalId = `r${iteration}-evaluation`;
    emit({
      type: 'step-start',
      id: evalId,
      kind: 'evaluation',
      title: phrase('step.evaluation'),
      body: evaluation.reason,
    });
    emit({ type: 'step-finish', id: evalId, status: 'info', collapse: evaluation.decision === 'continue' });
    log({ iteration, evaluation }, 'agent evaluation');
    if (evaluation.decision === 'stop') {
      state.finishReason = (evaluation.code as FinishReason | undefined) ?? 'sufficient';
      state.reason = evaluation.reason;
      return;
    }
    sufficient = evaluation.code === 'sufficient';
    if (evaluation.hint) appendHint(input.messages, evaluation.hint);
  }

  state.finishReason = 'max_iterations';
  state.reason = phrase('notice.iteration-limit', { count: input.maxIterations });
  emitNotice(emit, 'notice-iterations', state.reason, 'warning');
}

/** Adds the evaluation's note for the model after the round's last tool result, outside its delimiters. */
function appendHint(messages: ChatMessage[], hint: string): void {
  const last = messages.at(-1);
  if (last?.role === 'tool') last.content = `${last.content}\n\n${hint}`;
}

/** Even with every page shortened the conversation would not fit: answer from what was gathered. */
function stopForFullContext(input: ToolPhaseInput, state: ToolPhaseState): void {
  state.finishReason = 'context_full';
  state.reason = phrase('notice.context-full');
  input.logger.warn({ iterations: state.iterations }, 'agent tool results fill the context window');
  emitNotice(input.emit, 'notice-context-full', state.reason, 'warning');
}

function stopForLoop(input: ToolPhaseInput, state: ToolPhaseState, thought: string): void {
  state.finishReason = 'loop';
  state.reason = phrase('notice.loop-detected');
  input.trace.addStep({ ...(thought ? { thought } : {}), elapsedMs: 0, error: 'loop detected' });
  emitNotice(input.emit, 'notice-loop', state.reason, 'warning');
}
