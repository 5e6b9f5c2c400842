/**
 * Wraps the tool registry so every tool call — Scout's own tools and MCP servers' alike — is a span
 * under the running turn, active while the tool runs (a web_search tool's search is its child).
 * MCP calls carry the server's name and `mcp.method.name`. Arguments and results are content: on
 * the span only with content capture on.
 */
import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import type { ToolRegistry } from '../../tools/types.js';
import { ERROR_TYPE, GEN_AI, SCOUT } from './genai.js';

export function traceTools(
  tracer: Tracer,
  capture?: (text: string) => string,
): (registry: ToolRegistry) => ToolRegistry {
  return (registry) => {
    const serverOf = (name: string): string | undefined =>
      registry.list?.().find((tool) => tool.name === name)?.server;
    return {
      // The registry's members are plain closures: copied as they are, only `execute` is watched.
      ...registry,
      execute(name, rawArguments, context) {
        const server = serverOf(name);
        return tracer.startActiveSpan(
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
          async (span) => {
            try {
              // The registry never throws: a failure is a result the model reads.
              const output = await registry.execute(name, rawArguments, context);
              if (output.isError) {
                span.setStatus({ code: SpanStatusCode.ERROR });
                span.setAttribute(ERROR_TYPE, 'tool_error');
              }
              if (capture) span.setAttribute(GEN_AI.toolResult, capture(output.text));
              return output;
            } finally {
              span.end();
            }
          },
        );
      },
    };
  };
}
