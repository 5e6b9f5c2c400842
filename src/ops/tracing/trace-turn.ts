/**
 * One trace per turn: the core's `aroundTurn` hook runs the turn inside an `invoke_agent` span and
 * hands it a scope (src/core/turn-scope.ts) whose model clients, tool registry and search service
 * make their spans under it, so every model call, tool call, search and MCP call the turn makes
 * becomes its child. The parent is passed explicitly, never through an async context: on Node 20 an
 * AsyncLocalStorage puts promise hooks on every promise of the process, which cost more than the
 * spans themselves (docs/performance.md, scenario 17). The hook also
 * hands the turn a watched context source (reading the thread and its files: `read_context` spans)
 * and a watched sink (the final delivery to the platform: a `deliver` span; waiting for Approve /
 * Run: `wait_for_user` spans). The turn span carries surface, mode, outcome, tokens and cost; the
 * question and answer only with content capture on.
 */
import { type Context, ROOT_CONTEXT, type Span, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import type { MessageContextSource } from '../../context/types.js';
import type { TurnObserver } from '../../core/scout-deps.js';
import type { TurnScope } from '../../core/turn-scope.js';
import type { LlmClient } from '../../llm/types.js';
import type { SearchService } from '../../search/types.js';
import type { ToolRegistry } from '../../tools/types.js';
import type { TurnView } from '../../render/view.js';
import type { IncomingMessage, TurnSink } from '../../surface.js';
import { errorKind } from '../metrics-observer.js';
import { GEN_AI, SCOUT } from './genai.js';
import { failed, spanned } from './spanned.js';
import type { SearchUnder } from './trace-tools.js';

/** The wrappers that put a turn's model, tool and search calls under a parent span. */
export interface TurnTracers {
  llm(client: LlmClient, parent: Context): LlmClient;
  search(service: SearchService, parent: Context): SearchService;
  tools(registry: ToolRegistry, parent: Context, searchUnder?: SearchUnder): ToolRegistry;
}

const SURFACES = new Set(['slack', 'discord', 'console']);

/** The surface a message came from: adapters prefix their ids with it ("slack:T1:C123"). */
export function surfaceOf(channelId: string): string {
  const prefix = channelId.slice(0, channelId.indexOf(':'));
  return SURFACES.has(prefix) ? prefix : 'unknown';
}

export function traceTurns(
  tracer: Tracer,
  tracers: TurnTracers,
  capture?: (text: string) => string,
): TurnObserver {
  /** A child span of the turn's (`parent`) around `work`; `after` reads its result onto the span. */
  const child = <T>(
    parent: Context,
    name: string,
    attributes: Record<string, string | number>,
    work: () => Promise<T>,
    after?: (span: Span, result: T) => void,
  ): Promise<T> => spanned(tracer, parent, name, after ? { attributes, after } : { attributes }, work);

  function watchContext(source: MessageContextSource, parent: Context): MessageContextSource {
    const watched: MessageContextSource = {
      messageId: source.messageId,
      attachments: source.attachments,
      download: (attachment, options) =>
        child(
          parent,
          'read_context file',
          {
            [SCOUT.contextKind]: 'file',
            ...(attachment.mimeType ? { 'scout.context.mime_type': attachment.mimeType } : {}),
          },
          () => source.download(attachment, options),
          (span, result) => {
            span.setAttribute(SCOUT.contextOutcome, result.ok ? 'ok' : result.reason);
            if (result.ok) span.setAttribute(SCOUT.contextBytes, result.bytes.byteLength);
          },
        ),
    };
    if (source.earlier) {
      watched.earlier = (options) =>
        child(
          parent,
          'read_context thread',
          { [SCOUT.contextKind]: 'thread' },
          () => source.earlier?.(options) ?? Promise.resolve([]),
          (span, messages) => span.setAttribute(SCOUT.contextMessages, messages.length),
        );
    }
    return watched;
  }

  function watchSink(sink: TurnSink, surface: string, turnSpan: Span, parent: Context): TurnSink {
    let updates = 0;
    const summarize = (view: TurnView) => {
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
    const watched: TurnSink = {
      update(view) {
        updates += 1;
        sink.update(view);
      },
      done(view) {
        summarize(view);
        return child(parent, 'deliver', { [SCOUT.surface]: surface, [SCOUT.deliveryUpdates]: updates }, () =>
          sink.done(view),
        );
      },
      reply: (text, options) =>
        child(parent, 'deliver reply', { [SCOUT.surface]: surface }, () => sink.reply(text, options)),
    };
    // Optional members stay optional: the core asks only surfaces that have them.
    if (sink.replyPrivately) {
      const privately = sink.replyPrivately.bind(sink);
      watched.replyPrivately = (text) =>
        child(parent, 'deliver reply', { [SCOUT.surface]: surface }, () => privately(text));
    }
    if (sink.confirmPlan) {
      const confirm = sink.confirmPlan.bind(sink);
      watched.confirmPlan = (plan, signal) =>
        child(
          parent,
          'wait_for_user plan',
          {},
          () => confirm(plan, signal),
          (span, ok) => span.setAttribute('scout.approved', ok),
        );
    }
    if (sink.confirmTool) {
      const confirm = sink.confirmTool.bind(sink);
      watched.confirmTool = (request, signal) =>
        child(
          parent,
          'wait_for_user tool',
          { [GEN_AI.toolName]: request.tool },
          () => confirm(request, signal),
          (span, ok) => span.setAttribute('scout.approved', ok),
        );
    }
    return watched;
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
            ...(capture ? { [SCOUT.question]: capture(message.text) } : {}),
          },
        },
        ROOT_CONTEXT,
      );
      const parent = trace.setSpan(ROOT_CONTEXT, span);
      const { traceId, spanId } = span.spanContext();
      // The search the turn's scope wrapped: tool calls trace it again under their own spans.
      let search: SearchService | undefined;
      const scope: TurnScope = {
        wrapLlm: (client) => tracers.llm(client, parent),
        wrapSearch(service) {
          search = service;
          return tracers.search(service, parent);
        },
        wrapTools: (registry) =>
          tracers.tools(registry, parent, (under) => search && tracers.search(search, under)),
        logFields: { trace_id: traceId, span_id: spanId },
        onTurnStart: (info) => span.setAttribute(SCOUT.mode, info.mode),
        onTurnEnd(info) {
          span.setAttribute(SCOUT.outcome, info.outcome);
          if (info.outcome === 'error') failed(span, errorKind(info.error));
        },
      };
      const watched = message.context
        ? { ...message, context: watchContext(message.context, parent) }
        : message;
      try {
        await run(watched, watchSink(sink, surface, span, parent), scope);
      } catch (err) {
        failed(span, errorKind(err));
        throw err;
      } finally {
        span.end();
      }
    },
  };
}
