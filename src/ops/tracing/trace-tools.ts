/**
 * Wraps the tool registry so every tool call — Scout's own tools and MCP servers' alike — is a span
 * under `parent` (the turn's span). The call hands its tool a search traced under the call's span
 * (a web_search tool's search is its child) and its ids for the registry's log lines. MCP calls
 * carry the server's name and `mcp.method.name`. Arguments and results are content: on the span
 * only with content capture on.
 */
import { type Context, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import type { SearchService } from '../../search/types.js';
import type { ToolRegistry } from '../../tools/types.js';
import { GEN_AI, SCOUT } from './genai.js';
import { failed } from './spanned.js';

/** The search a tool call uses, traced under the call's span (absent: the tool's own). */
export type SearchUnder = (parent: Context) => SearchService | undefined;

export function traceTools(
  tracer: Tracer,
  capture?: (text: string) => string,
): (registry: ToolRegistry, parent: Context, searchUnder?: SearchUnder) => ToolRegistry {
  return (registry, parent, searchUnder) => {
    // Read at the turn's first call (MCP servers' tools are listed once the turn has prepared
    // them), not by listing every tool again on every call.
    let servers: Map<string, string | undefined> | undefined;
    const serverOf = (name: string): string | undefined => {
      // A name not seen yet (a server's tools changed mid-turn): listed again.
      if (!servers?.has(name))
        servers = new Map((registry.list?.() ?? []).map((tool) => [tool.name, tool.server]));
      return servers.get(name);
    };
    return {
      // The registry's members are plain closures: copied as they are, only `execute` is watched.
      ...registry,
      async execute(name, rawArguments, context) {
        const server = serverOf(name);
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
        const search = searchUnder?.(trace.setSpan(parent, span));
        try {
          // The registry never throws: a failure is a result the model reads.
          const output = await registry.execute(name, rawArguments, {
            ...context,
            ...(search ? { search } : {}),
            logFields: { trace_id: traceId, span_id: spanId },
          });
          if (output.isError) failed(span, 'tool_error');
          if (capture) span.setAttribute(GEN_AI.toolResult, capture(output.text));
          return output;
        } finally {
          span.end();
        }
      },
    };
  };
}
