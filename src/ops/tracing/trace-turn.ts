/**
 * One trace per turn: the core's `aroundTurn` hook runs the turn inside an `invoke_agent` span, so
 * every model call, tool call, search and MCP call the turn makes becomes its child. The hook also
 * hands the turn a watched context source (reading the thread and its files: `read_context` spans)
 * and a watched sink (the final delivery to the platform: a `deliver` span; waiting for Approve /
 * Run: `wait_for_user` spans). The turn span carries surface, mode, outcome, tokens and cost; the
 * question and answer only with content capture on.
 */
import { type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { MessageContextSource } from '../../context/types.js';
import type { TurnObserver } from '../../core/scout-deps.js';
import type { TurnView } from '../../render/view.js';
import type { IncomingMessage, TurnSink } from '../../surface.js';
import { errorKind } from '../metrics-observer.js';
import { ERROR_TYPE, GEN_AI, SCOUT } from './genai.js';

const SURFACES = new Set(['slack', 'discord', 'console']);

/** The surface a message came from: adapters prefix their ids with it ("slack:T1:C123"). */
export function surfaceOf(channelId: string): string {
  const prefix = channelId.slice(0, channelId.indexOf(':'));
  return SURFACES.has(prefix) ? prefix : 'unknown';
}

function failed(span: Span, type: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute(ERROR_TYPE, type);
}

export function traceTurns(tracer: Tracer, capture?: (text: string) => string): TurnObserver {
  /**
   * A child span of the running turn around `work`; `after` reads its result onto the span. Not made
   * the active span: nothing under these has spans of its own, and each activation costs a context.
   */
  async function spanned<T>(
    name: string,
    attributes: Record<string, string | number>,
    work: () => Promise<T>,
    after?: (span: Span, result: T) => void,
  ): Promise<T> {
    const span = tracer.startSpan(name, { attributes });
    try {
      const result = await work();
      after?.(span, result);
      return result;
    } catch (err) {
      failed(span, err instanceof Error ? err.name : 'unknown');
      throw err;
    } finally {
      span.end();
    }
  }

  function watchContext(source: MessageContextSource): MessageContextSource {
    const watched: MessageContextSource = {
      messageId: source.messageId,
      attachments: source.attachments,
      download: (attachment, options) =>
        spanned(
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
        spanned(
          'read_context thread',
          { [SCOUT.contextKind]: 'thread' },
          () => source.earlier?.(options) ?? Promise.resolve([]),
          (span, messages) => span.setAttribute(SCOUT.contextMessages, messages.length),
        );
    }
    return watched;
  }

  function watchSink(sink: TurnSink, surface: string, turnSpan: Span): TurnSink {
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
        return spanned('deliver', { [SCOUT.surface]: surface, [SCOUT.deliveryUpdates]: updates }, () =>
          sink.done(view),
        );
      },
      reply: (text, options) =>
        spanned('deliver reply', { [SCOUT.surface]: surface }, () => sink.reply(text, options)),
    };
    // Optional members stay optional: the core asks only surfaces that have them.
    if (sink.confirmPlan) {
      const confirm = sink.confirmPlan.bind(sink);
      watched.confirmPlan = (plan, signal) =>
        spanned(
          'wait_for_user plan',
          {},
          () => confirm(plan, signal),
          (span, ok) => span.setAttribute('scout.approved', ok),
        );
    }
    if (sink.confirmTool) {
      const confirm = sink.confirmTool.bind(sink);
      watched.confirmTool = (request, signal) =>
        spanned(
          'wait_for_user tool',
          { [GEN_AI.toolName]: request.tool },
          () => confirm(request, signal),
          (span, ok) => span.setAttribute('scout.approved', ok),
        );
    }
    return watched;
  }

  return {
    aroundTurn(message: IncomingMessage, sink: TurnSink, run) {
      const surface = surfaceOf(message.channelId);
      return tracer.startActiveSpan(
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
        async (span) => {
          const watched = message.context ? { ...message, context: watchContext(message.context) } : message;
          try {
            await run(watched, watchSink(sink, surface, span));
          } catch (err) {
            failed(span, errorKind(err));
            throw err;
          } finally {
            span.end();
          }
        },
      );
    },
    // Called inside the turn, so the active span is the turn's.
    onTurnStart(info) {
      trace.getActiveSpan()?.setAttribute(SCOUT.mode, info.mode);
    },
    onTurnEnd(info) {
      const span = trace.getActiveSpan();
      if (!span) return;
      span.setAttribute(SCOUT.outcome, info.outcome);
      if (info.outcome === 'error') failed(span, errorKind(info.error));
    },
  };
}
