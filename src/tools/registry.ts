/**
 * The tool registry (seed 003): tools register with a zod input schema; the registry emits JSON
 * Schema for the function-call model, validates the model's arguments, runs each call with a time
 * limit and honours the AGENT_TOOLS allow/deny list. `execute` never throws: every failure comes back
 * as `{ isError: true, text }` telling the model what went wrong.
 */
import { z } from 'zod';
import { isAbortError } from '../errors.js';
import type { ToolDefinition } from '../llm/types.js';
import type { Logger } from '../logger.js';
import type { Tool, ToolContext, ToolOutput, ToolRegistry } from './types.js';

/** Long enough for a slow search or page fetch, short enough to keep the agent's 60 s budget. */
export const DEFAULT_TOOL_TIMEOUT_MS = 20_000;

export interface ToolRegistryOptions {
  /** AGENT_TOOLS entries: names allow only those tools; "-name" denies one. Empty allows all. */
  allow?: string[];
  defaultTimeoutMs?: number;
  logger: Logger;
}

/** Applies the AGENT_TOOLS list: any plain name makes it an allow-list; "-name" always denies. */
export function filterTools(tools: Tool[], allow: string[] = []): Tool[] {
  const denied = new Set(allow.filter((a) => a.startsWith('-')).map((a) => a.slice(1).trim()));
  const allowed = new Set(allow.filter((a) => !a.startsWith('-')).map((a) => a.trim()));
  return tools.filter((t) => !denied.has(t.name) && (allowed.size === 0 || allowed.has(t.name)));
}

/** JSON Schema for the model: zod 4's converter, input side, without the `$schema` marker. */
export function toolParameters(tool: Tool): Record<string, unknown> {
  const { $schema: _drop, ...schema } = z.toJSONSchema(tool.inputSchema, {
    io: 'input',
    unrepresentable: 'any',
  });
  return schema as Record<string, unknown>;
}

export function createToolRegistry(tools: Tool[], options: ToolRegistryOptions): ToolRegistry {
  const log = options.logger.child({ component: 'tools' });
  const active = filterTools(tools, options.allow);
  const known = new Set(tools.map((t) => t.name));
  for (const name of options.allow ?? []) {
    const bare = name.replace(/^-/, '').trim();
    if (!known.has(bare)) log.warn({ tool: bare }, 'AGENT_TOOLS names a tool that does not exist');
  }
  const byName = new Map(active.map((t) => [t.name, t]));
  const definitions: ToolDefinition[] = active.map((t) => ({
    name: t.name,
    description: t.description,
    parameters: toolParameters(t),
  }));
  const defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;

  return {
    definitions: () => definitions.map((d) => ({ ...d })),
    has: (name) => byName.has(name),
    async execute(name, rawArguments, context): Promise<ToolOutput> {
      const tool = byName.get(name);
      if (!tool) {
        const names = [...byName.keys()].join(', ') || 'none';
        return { isError: true, text: `Unknown tool "${name}". Available tools: ${names}.` };
      }
      const parsed = parseArguments(tool, rawArguments);
      if ('error' in parsed) {
        log.info({ tool: name, error: parsed.error }, 'tool call rejected: invalid arguments');
        return { isError: true, text: parsed.error };
      }
      return runWithTimeout(tool, parsed.input, context, tool.timeoutMs ?? defaultTimeoutMs, log);
    },
  };
}

function parseArguments(tool: Tool, raw: string): { input: unknown } | { error: string } {
  // Built only for a rejection: zod's JSON Schema conversion is the costliest part of a valid call.
  const expected = () => `Call it again with a JSON object matching: ${JSON.stringify(toolParameters(tool))}`;
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
    // Some models double-encode the arguments as a JSON string.
    if (typeof value === 'string') value = JSON.parse(value);
  } catch {
    return { error: `Invalid arguments for ${tool.name}: not valid JSON. ${expected()}` };
  }
  const result = tool.inputSchema.safeParse(value);
  if (!result.success) {
    const problems = result.error.issues
      .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
      .join('; ');
    return { error: `Invalid arguments for ${tool.name}: ${problems}. ${expected()}` };
  }
  return { input: result.data };
}

async function runWithTimeout(
  tool: Tool,
  input: unknown,
  context: ToolContext,
  timeoutMs: number,
  log: Logger,
): Promise<ToolOutput> {
  if (context.signal.aborted) return { isError: true, text: `${tool.name} was cancelled.` };
  const controller = new AbortController();
  const onAbort = () => controller.abort(context.signal.reason);
  context.signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const cancelled = new Promise<'cancelled'>((resolve) => {
    controller.signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
  });
  const started = performance.now();
  try {
    const outcome = await Promise.race([
      Promise.resolve().then(() => tool.run(input, { ...context, signal: controller.signal })),
      timedOut,
      cancelled,
    ]);
    if (outcome === 'timeout') {
      controller.abort(new Error('tool timeout'));
      log.warn({ tool: tool.name, timeoutMs }, 'tool call timed out');
      return { isError: true, text: `${tool.name} timed out after ${timeoutMs} ms.` };
    }
    if (outcome === 'cancelled') return { isError: true, text: `${tool.name} was cancelled.` };
    log.debug(
      { tool: tool.name, ms: Math.round(performance.now() - started), isError: outcome.isError },
      'tool done',
    );
    return outcome;
  } catch (err) {
    if (controller.signal.aborted || isAbortError(err))
      return { isError: true, text: `${tool.name} was cancelled.` };
    log.warn({ err, tool: tool.name }, 'tool call failed');
    const message = err instanceof Error ? err.message : String(err);
    return { isError: true, text: `${tool.name} failed: ${message}` };
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener('abort', onAbort);
  }
}
