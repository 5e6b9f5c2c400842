/**
 * One trace per turn: the core's `aroundTurn` hook runs the turn inside an `invoke_agent` span and
 * hands it a scope (`TurnScope`, src/core/scout-deps.ts) that the turn tells of each model call,
 * tool call and step it waits on (src/turn-steps.ts), so each becomes a child span: model calls,
 * tool calls (and the searches they make, under them), searches, reading the thread and its files
 * (`read_context`), the final delivery to the platform (`deliver`) and waiting for Approve / Run
 * (`wait_for_user`). Nothing of the turn is wrapped: the clients, registry, search service, context
 * source and sink the turn uses are its own (wrapping them cost no less CPU than this: docs/
 * performance.md, scenario 17). The parent is passed explicitly, never through an async context: on
 * Node 20 an AsyncLocalStorage puts promise hooks on every promise of the process, which cost more
 * than the spans themselves. The turn span carries surface, mode, outcome, tokens and cost; the
 * question and answer only with content capture on.
 */
import { type Context, ROOT_CONTEXT, type Span, SpanKind, trace } from '@opentelemetry/api';
import type { TurnObserver, TurnScope } from '../../core/scout-deps.js';
import type { HearStep, StepResult, TurnStep, TurnStepKind } from '../../turn-steps.js';
import type { IncomingMessage, TurnSink } from '../../surface.js';
import { errorKind } from '../metrics-observer.js';
import { GEN_AI, SCOUT } from './genai.js';
import type { SpanStarter } from './recorded-spans.js';
import { failed, spanned } from './spanned.js';
import type { ModelCallTracer } from './trace-llm.js';
import type { SearchTracer } from './trace-search.js';
import type { ToolCallTracer } from './trace-tools.js';

/** What makes the spans of a turn's model calls, tool calls and searches. */
export interface TurnTracers {
  llm: ModelCallTracer;
  search: SearchTracer;
  tools: ToolCallTracer;
}

const SURFACES = new Set(['slack', 'discord', 'console']);

/** The surface a message came from: adapters prefix their ids with it ("slack:T1:C123"). */
export function surfaceOf(channelId: string): string {
  const prefix = channelId.slice(0, channelId.indexOf(':'));
  return SURFACES.has(prefix) ? prefix : 'unknown';
}

export function traceTurns(
  tracer: SpanStarter,
  tracers: TurnTracers,
  capture?: (text: string) => string,
): TurnObserver {
  /** A child span of `parent` around `work`; `after` reads its result onto the span. */
  const child = <T>(
    parent: Context,
    name: string,
    attributes: Record<string, string | number>,
    work: () => Promise<T>,
    after?: (span: Span, result: T) => void,
  ): Promise<T> => spanned(tracer, parent, name, after ? { attributes, after } : { attributes }, work);

  /** The turn's final view, read onto its span when it is delivered. */
  const summarize = (turnSpan: Span, step: TurnStep<'deliver'>) => {
    const { view } = step;
    const stats = view.stats;
    if (stats) {
      turnSpan.setAttributes({
        [SCOUT.totalTokens]: stats.totalTokens,
        [SCOUT.toolCalls]: stats.toolCalls,
        [SCOUT.searches]: stats.searches,
        ...(stats.costUsd !== undefined ? { [SCOUT.costUsd]: stats.costUsd } : {}),
      });
    }
    if (capture && view.answer) turnSpan.setAttribute(SCOUT.answer, capture(view.answer));
  };

  /** The steps of a turn heard under `parent`: each a span of its own. */
  function stepsUnder(parent: Context, turnSpan: Span, surface: string): HearStep {
    // One function for every kind: TypeScript cannot narrow a generic step, so each case says its type.
    const hear = (step: TurnStep, work: () => Promise<unknown>): Promise<unknown> => {
      switch (step.kind) {
        case 'search':
          return tracers.search(
            step as TurnStep<'search'>,
            work as () => Promise<StepResult<'search'>>,
            parent,
          );
        case 'read-thread':
          return child(
            parent,
            'read_context thread',
            { [SCOUT.contextKind]: 'thread' },
            work,
            (span, messages) =>
              span.setAttribute(SCOUT.contextMessages, (messages as StepResult<'read-thread'>).length),
          );
        case 'read-file': {
          const { mimeType } = step as TurnStep<'read-file'>;
          return child(
            parent,
            'read_context file',
            { [SCOUT.contextKind]: 'file', ...(mimeType ? { 'scout.context.mime_type': mimeType } : {}) },
            work,
            (span, read) => {
              const result = read as StepResult<'read-file'>;
              span.setAttribute(SCOUT.contextOutcome, result.ok ? 'ok' : result.reason);
              if (result.ok) span.setAttribute(SCOUT.contextBytes, result.bytes.byteLength);
            },
          );
        }
        case 'deliver': {
          const delivery = step as TurnStep<'deliver'>;
          summarize(turnSpan, delivery);
          return child(
            parent,
            'deliver',
            { [SCOUT.surface]: surface, [SCOUT.deliveryUpdates]: delivery.updates },
            work,
          );
        }
        case 'confirm-plan':
        case 'confirm-tool': {
          const tool = step.kind === 'confirm-tool' ? (step as TurnStep<'confirm-tool'>).tool : undefined;
          return child(
            parent,
            tool === undefined ? 'wait_for_user plan' : 'wait_for_user tool',
            tool === undefined ? {} : { [GEN_AI.toolName]: tool },
            work,
            (span, ok) => span.setAttribute('scout.approved', ok as boolean),
          );
        }
      }
    };
    return hear as <K extends TurnStepKind>(
      step: TurnStep<K>,
      work: () => Promise<StepResult<K>>,
    ) => Promise<StepResult<K>>;
  }

  return {
    async aroundTurn(message: IncomingMessage, sink: TurnSink, run) {
      const surface = surfaceOf(message.channelId);
      const span = tracer.startSpan(
        'invoke_agent Scout',
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            [GEN_AI.operation]: 'invoke_agent',
            [GEN_AI.agentName]: 'Scout',
            [GEN_AI.conversationId]: message.conversationId,
            [SCOUT.surface]: surface,
          },
        },
        ROOT_CONTEXT,
      );
      // A turn the sampler leaves out (OTEL_TRACES_SAMPLER) runs as an untraced turn does, with no
      // scope: every sampler the variable names decides a trace's children as it decided its root
      // (by the parent, or by the trace id's ratio), so the turn's ten-odd spans would all record
      // nothing, and making them still cost about 2 ms a turn (bench scenario 17, sampler off).
      // Its log lines carry no trace id: no trace holds them.
      if (!span.isRecording()) return run(message, sink);
      // Scrubbed only for a turn that is recorded: the question may be 16,000 characters.
      if (capture) span.setAttribute(SCOUT.question, capture(message.text));
      const parent = trace.setSpan(ROOT_CONTEXT, span);
      const { traceId, spanId } = span.spanContext();
      const under = (callParent: Context) => stepsUnder(callParent, span, surface);
      const scope: TurnScope = {
        logFields: { trace_id: traceId, span_id: spanId },
        modelCall: (client, request) => tracers.llm(client, request, parent),
        toolCall: (name, rawArguments, registry) =>
          tracers.tools(name, rawArguments, registry, parent, under),
        hearStep: under(parent),
        onTurnStart: (info) => span.setAttribute(SCOUT.mode, info.mode),
        onTurnEnd(info) {
          span.setAttribute(SCOUT.outcome, info.outcome);
          if (info.outcome === 'error') failed(span, errorKind(info.error));
        },
      };
      try {
        await run(message, sink, scope);
      } catch (err) {
        failed(span, errorKind(err));
        throw err;
      } finally {
        span.end();
      }
    },
  };
}
