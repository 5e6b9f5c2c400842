/**
 * Every tool call of a turn — Scout's own tools and MCP servers' alike — as a span under `parent`
 * (the turn's span), heard through the turn's scope (`TurnScope.toolCall`, src/core/scout-deps.ts;
 * the turn's meter tells it). The steps the call makes (web_search's search) are heard under the
 * call's span, and its log lines carry the call's ids. MCP calls carry the server's name and
 * `mcp.method.name`. Arguments and results are content: on the span only with content capture on.
 */
import { type Context, SpanKind, trace } from '@opentelemetry/api';
import type { ToolCallWatcher } from '../../core/scout-deps.js';
import type { HearStep } from '../../turn-steps.js';
import type { ToolRegistry } from '../../tools/types.js';
import { GEN_AI, SCOUT } from './genai.js';
import type { SpanStarter } from './recorded-spans.js';
import { failed } from './spanned.js';

export type ToolCallTracer = (
  name: string,
  rawArguments: string,
  registry: ToolRegistry,
  parent: Context,
  /** The steps heard under a parent (the call's span). */
  stepsUnder: (parent: Context) => HearStep,
) => ToolCallWatcher;

export function traceTools(tracer: SpanStarter, capture?: (text: string) => string): ToolCallTracer {
  // Which server offers each tool, per registry (a turn's), read when a name is not known yet (MCP
  // servers' tools are listed once the turn has prepared them; a server's tools may change).
  const servers = new WeakMap<ToolRegistry, Map<string, string | undefined>>();
  const serverOf = (registry: ToolRegistry, name: string): string | undefined => {
    let known = servers.get(registry);
    if (!known?.has(name)) {
      known = new Map((registry.list?.() ?? []).map((tool) => [tool.name, tool.server]));
      servers.set(registry, known);
    }
    return known.get(name);
  };
  return (name, rawArguments, registry, parent, stepsUnder) => {
    const server = serverOf(registry, name);
    const span = tracer.startSpan(
      `execute_tool ${name}`,
      {
        kind: server ? SpanKind.CLIENT : SpanKind.INTERNAL,
        attributes: {
          [GEN_AI.operation]: 'execute_tool',
          [GEN_AI.toolName]: name,
          [GEN_AI.toolType]: server ? 'extension' : 'function',
          ...(server ? { [SCOUT.toolServer]: server, 'mcp.method.name': 'tools/call' } : {}),
          ...(capture ? { [GEN_AI.toolArguments]: capture(rawArguments) } : {}),
        },
      },
      parent,
    );
    const { traceId, spanId } = span.spanContext();
    return {
      logFields: { trace_id: traceId, span_id: spanId },
      hearStep: stepsUnder(trace.setSpan(parent, span)),
      // The registry never throws for a failed tool (a failure is a result the model reads); a
      // cancellation ends the span as it is.
      end(output) {
        if (output?.isError) failed(span, 'tool_error');
        if (output && capture) span.setAttribute(GEN_AI.toolResult, capture(output.text));
        span.end();
      },
    };
  };
}
