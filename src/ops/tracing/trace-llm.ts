/**
 * Every model call of a turn as a span under the turn's (`parent`), heard through the turn's scope
 * (`TurnScope.modelCall`, src/core/scout-deps.ts; the turn's meter tells it), named and attributed
 * by the GenAI semantic conventions: operation, provider, requested and answering model, tokens in,
 * out, cached, cache-written and reasoning, finish reason, and the estimated cost. The messages go
 * on the span only when content capture is switched on (OTEL_CAPTURE_CONTENT).
 */
import { type Context, type Span, SpanKind } from '@opentelemetry/api';
import { LlmError } from '../../errors.js';
import { estimateCost, type PriceTable } from '../../llm/pricing.js';
import type { ModelCallWatcher } from '../../core/scout-deps.js';
import type {
  ChatMessage,
  FinishReason,
  LlmClient,
  LlmRequest,
  LlmResponse,
  StreamPart,
  Usage,
} from '../../llm/types.js';
import type { SpanStarter } from './recorded-spans.js';
import { GEN_AI, SCOUT, providerName } from './genai.js';
import { failed } from './spanned.js';

export interface TraceLlmOptions {
  tracer: SpanStarter;
  prices: PriceTable;
  /** Present when content capture is on: bounds and scrubs a text before it goes on a span. */
  capture?: (text: string) => string;
}

/** The conventions' finish reasons (Scout's `other` and `error` have no counterpart). */
function finishReason(reason: FinishReason): string {
  return reason === 'other' ? 'unknown' : reason;
}

/** The conventions' message shape (gen_ai.input.messages), without images' bytes. */
function messagesJson(messages: ChatMessage[]): string {
  return JSON.stringify(
    messages.map((m) => {
      if (m.role === 'tool')
        return {
          role: 'tool',
          parts: [{ type: 'tool_call_response', id: m.toolCallId, response: m.content }],
        };
      const parts: Record<string, unknown>[] = [];
      if (m.content) parts.push({ type: 'text', content: m.content });
      if (m.role === 'user' && m.images?.length)
        for (const image of m.images)
          parts.push({ type: 'blob', mime_type: image.mimeType, name: image.name });
      if (m.role === 'assistant')
        for (const call of m.toolCalls ?? [])
          parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments });
      return { role: m.role, parts };
    }),
  );
}

function outputJson(
  text: string,
  toolCalls: { id: string; name: string; arguments: string }[],
  reason: string,
) {
  const parts: Record<string, unknown>[] = text ? [{ type: 'text', content: text }] : [];
  for (const call of toolCalls)
    parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments });
  return JSON.stringify([{ role: 'assistant', parts, finish_reason: reason }]);
}

export type ModelCallTracer = (client: LlmClient, request: LlmRequest, parent: Context) => ModelCallWatcher;

export function traceLlm(options: TraceLlmOptions): ModelCallTracer {
  const { tracer, prices, capture } = options;
  /** The span's name and provider per client (a turn's clients are few and reused across calls). */
  const named = new WeakMap<LlmClient, { name: string; provider: string }>();

  const start = (client: LlmClient, request: LlmRequest, parent: Context): Span => {
    const config = client.config;
    let names = named.get(client);
    if (!names) {
      names = { name: `chat ${config.model}`, provider: providerName(config.provider) };
      named.set(client, names);
    }
    const { name, provider } = names;
    const span = tracer.startSpan(
      name,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [GEN_AI.operation]: 'chat',
          [GEN_AI.provider]: provider,
          [GEN_AI.system]: provider,
          [GEN_AI.requestModel]: config.model,
          [GEN_AI.temperature]: config.temperature,
          ...(config.maxTokens !== undefined ? { [GEN_AI.maxTokens]: config.maxTokens } : {}),
          ...(config.topP !== undefined ? { [GEN_AI.topP]: config.topP } : {}),
          ...(request.json || request.jsonSchema ? { [GEN_AI.outputType]: 'json' } : {}),
        },
      },
      parent,
    );
    if (capture) span.setAttribute(GEN_AI.inputMessages, capture(messagesJson(request.messages)));
    return span;
  };

  return (client, request, parent) => {
    const span = start(client, request, parent);
    // A span sampled out records nothing: its watcher hears nothing (not even the usage).
    if (!span.isRecording()) return { partTypes: [], end: () => span.end() };
    let usage: Usage | undefined;
    let reason: string | undefined;
    let model: string | undefined;
    let text = '';
    const calls: { id: string; name: string; arguments: string }[] = [];
    return {
      // Without content capture only the usage and the finish go on the span, not each token.
      ...(capture ? {} : { partTypes: ['usage', 'finish'] as const }),
      part(part: StreamPart) {
        switch (part.type) {
          case 'usage':
            usage = part.usage;
            break;
          case 'finish':
            reason = finishReason(part.reason);
            model = part.model;
            break;
          case 'text':
            if (capture) text += part.text;
            break;
          case 'tool-call':
            if (capture) calls.push(part.toolCall);
            break;
        }
      },
      response(response: LlmResponse) {
        usage = response.usage;
        reason = finishReason(response.finishReason);
        model = response.model;
        if (capture) {
          text = response.text;
          calls.push(...response.toolCalls);
        }
      },
      error(err: unknown) {
        // The error's class and code, never its message: provider bodies may quote the request.
        failed(span, err instanceof LlmError ? err.code : 'unknown');
        if (!usage && err instanceof LlmError) usage = err.details.usage;
      },
      end() {
        if (usage) {
          span.setAttributes({
            [GEN_AI.inputTokens]: usage.inputTokens,
            [GEN_AI.outputTokens]: usage.outputTokens,
            [GEN_AI.reasoningTokens]: usage.reasoningTokens,
            ...(usage.cachedInputTokens ? { [GEN_AI.cacheReadTokens]: usage.cachedInputTokens } : {}),
            ...(usage.cacheWriteTokens ? { [GEN_AI.cacheWriteTokens]: usage.cacheWriteTokens } : {}),
          });
          const cost = estimateCost(client.label, usage, prices);
          if (cost !== undefined) span.setAttribute(SCOUT.costUsd, cost);
        }
        if (model) span.setAttribute(GEN_AI.responseModel, model);
        if (reason) {
          span.setAttribute(GEN_AI.finishReasons, [reason]);
          if (capture) span.setAttribute(GEN_AI.outputMessages, capture(outputJson(text, calls, reason)));
        }
        span.end();
      },
    };
  };
}
