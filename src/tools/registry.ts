/**
 * The tool registry (seed 003): tools register with a zod input schema (or, from MCP servers, a JSON
 * Schema); the registry emits JSON Schema for the function-call model, validates the model's
 * arguments, asks the asker before a call that changes something, runs each call with a time limit
 * and honours the AGENT_TOOLS allow/deny patterns and the AGENT_MAX_TOOLS cap (tool-cap.ts). Tool
 * sources (MCP servers) are read again on every call, so tools that appear or vanish at run time are
 * seen at once. `execute` never throws: every failure comes back as `{ isError: true, text }` telling
 * the model what went wrong.
 */
import { ownReadings } from '../context/reading-owner.js';
import { isAbortError } from '../errors.js';
import type { ToolDefinition } from '../llm/types.js';
import type { Logger } from '../logger.js';
import * as z from '../schema/zod.js';
import { DEFAULT_MAX_TOOLS, ToolRanking, capTools } from './tool-cap.js';
import { matchesPattern } from './tool-patterns.js';
import type { Tool, ToolContext, ToolInfo, ToolOutput, ToolRegistry, ToolSource } from './types.js';

/** Long enough for a slow search or page fetch, short enough to keep the agent's 60 s budget. */
export const DEFAULT_TOOL_TIMEOUT_MS = 20_000;

export interface ToolRegistryOptions {
  /**
   * AGENT_TOOLS entries: names or patterns (`github__*`) allow only those tools; "-pattern" denies.
   * Empty allows all.
   */
  allow?: string[];
  /** Tools that come and go at run time (MCP servers). */
  sources?: ToolSource[];
  defaultTimeoutMs?: number;
  /** AGENT_MAX_TOOLS: tools sent with one request; Scout's own tools are always among them. */
  maxTools?: number;
  logger: Logger;
}

/** Applies the AGENT_TOOLS list: any plain pattern makes it an allow-list; "-pattern" always denies. */
export function filterTools(tools: Tool[], allow: string[] = []): Tool[] {
  const denied = allow.filter((a) => a.startsWith('-')).map((a) => a.slice(1).trim());
  const allowed = allow.filter((a) => !a.startsWith('-')).map((a) => a.trim());
  return tools.filter(
    (t) =>
      !denied.some((p) => matchesPattern(p, t.name)) &&
      (allowed.length === 0 || allowed.some((p) => matchesPattern(p, t.name))),
  );
}

/** JSON Schema for the model: the tool's own, or zod 4's converter, input side, without `$schema`. */
export function toolParameters(tool: Tool): Record<string, unknown> {
  if (tool.parameters) return tool.parameters;
  const { $schema: _drop, ...schema } = z.toJSONSchema(tool.inputSchema, {
    io: 'input',
    unrepresentable: 'any',
  });
  return schema as Record<string, unknown>;
}

export function createToolRegistry(tools: Tool[], options: ToolRegistryOptions): ToolRegistry {
  const log = options.logger.child({ component: 'tools' });
  const sources = options.sources ?? [];
  const known = new Set(tools.map((t) => t.name));
  for (const name of options.allow ?? []) {
    const bare = name.replace(/^-/, '').trim();
    // Patterns and MCP names (`server__tool`) name tools that only exist once their server runs.
    if (!known.has(bare) && !bare.includes('*') && !bare.includes('__'))
      log.warn({ tool: bare }, 'AGENT_TOOLS names a tool that does not exist');
  }
  const defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const maxTools = options.maxTools ?? DEFAULT_MAX_TOOLS;

  // Rebuilt only when a source's tool list changes (each returns the same array until then).
  let seen: Tool[][] | undefined;
  let current: {
    byName: Map<string, Tool>;
    definitions: ToolDefinition[];
    ranking?: ToolRanking;
  } = { byName: new Map<string, Tool>(), definitions: [] };
  const active = () => {
    const lists = sources.map((s) => s.tools());
    if (seen && lists.every((list, i) => list === seen?.[i])) return current;
    seen = lists;
    const all = [...tools];
    for (const tool of lists.flat()) {
      if (known.has(tool.name))
        log.warn({ tool: tool.name }, 'an MCP tool has the name of a built-in tool: skipped');
      else all.push(tool);
    }
    const allowed = filterTools(all, options.allow);
    current = {
      byName: new Map(allowed.map((t) => [t.name, t])),
      definitions: allowed.map((t) => ({
        name: t.name,
        description: t.description,
        parameters: toolParameters(t),
      })),
    };
    return current;
  };

  return {
    maxTools,
    definitions(view = {}) {
      const state = active();
      const enabled = view.enabled;
      const on = enabled ? state.definitions.filter((d) => enabled(d.name)) : state.definitions;
      const chosen = capTools(
        on,
        maxTools,
        {
          always: (name) => state.byName.get(name)?.server === undefined,
          ...(view.preferred ? { preferred: view.preferred } : {}),
          ...(view.question ? { question: view.question } : {}),
        },
        // Built on the first capped request after a list change, kept with that list.
        () => (state.ranking ??= new ToolRanking(state.definitions)),
      );
      if (chosen.length < on.length)
        log.debug({ offered: chosen.length, available: on.length, maxTools }, 'tools capped for a request');
      return chosen.map((d) => ({ ...d }));
    },
    has: (name) => active().byName.has(name),
    list: (): ToolInfo[] =>
      [...active().byName.values()].map((t) => ({
        name: t.name,
        description: t.description,
        needsApproval: t.needsApproval === true,
        ...(t.server ? { server: t.server } : {}),
      })),
    async prepare(signal) {
      const notices = await Promise.all(sources.map((s) => s.prepare?.(signal) ?? Promise.resolve([])));
      return notices.flat();
    },
    async close() {
      await Promise.allSettled(sources.map((s) => s.close?.()));
    },
    async execute(name, rawArguments, context): Promise<ToolOutput> {
      const { byName } = active();
      const tool = byName.get(name);
      if (!tool) {
        const names = [...byName.keys()].join(', ') || 'none';
        return { isError: true, text: `Unknown tool "${name}". Available tools: ${names}.` };
      }
      const callLog = context.logFields ? log.child(context.logFields) : log;
      const parsed = parseArguments(tool, rawArguments);
      if ('error' in parsed) {
        callLog.info({ tool: name, error: parsed.error }, 'tool call rejected: invalid arguments');
        return { isError: true, text: parsed.error };
      }
      // Asked before the time limit starts: a person deciding is not the tool being slow.
      if (tool.needsApproval) {
        const refusal = await askApproval(tool, parsed.input, context);
        if (refusal) {
          callLog.info({ tool: name }, 'tool call not approved');
          return { isError: true, text: refusal };
        }
      }
      return runWithTimeout(tool, parsed.input, context, tool.timeoutMs ?? defaultTimeoutMs, callLog);
    },
  };
}

/** Longest argument text passed with an approval request (the surface shows what fits and says so). */
const APPROVAL_ARGUMENTS_CHARS = 8_000;

/** Resolves with the refusal for the model, or undefined when the asker approved. */
async function askApproval(tool: Tool, input: unknown, context: ToolContext): Promise<string | undefined> {
  if (!context.confirm) {
    return `${tool.name} changes something and needs the user's approval, which cannot be asked here; it was not run. Tell the user.`;
  }
  const json = JSON.stringify(input, null, 2) ?? '{}';
  const cut = Math.max(0, json.length - APPROVAL_ARGUMENTS_CHARS);
  const approved = await context
    .confirm({
      tool: tool.name,
      arguments: cut > 0 ? json.slice(0, APPROVAL_ARGUMENTS_CHARS) : json,
      ...(cut > 0 ? { argumentsCut: cut } : {}),
      ...(tool.server ? { server: tool.server } : {}),
      ...(tool.title ? { title: tool.title } : {}),
    })
    .catch(() => false);
  if (approved && !context.signal.aborted) return undefined;
  return `The user did not approve ${tool.name}; it was not run. Do not call it again for this request.`;
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
  const result = z.safeParse(tool.inputSchema, value);
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
  // Readings the call starts (a PDF behind fetch_url) count toward its conversation's fair share.
  if (context.conversationId) ownReadings(controller.signal, context.conversationId);
  const onAbort = () => controller.abort(context.signal.reason);
  context.signal.addEventListener('abort', onAbort, { once: true });
  // The limit counts the call's own time: a wait the tool says is not its work (pauseTimeLimit) is
  // left out, the clock starting again with what was left when the last such wait ends.
  let timer: NodeJS.Timeout | undefined;
  let left = timeoutMs;
  let armedAt = 0;
  let paused = 0;
  let settled = false;
  let onTimeout: () => void = () => {};
  const arm = () => {
    armedAt = performance.now();
    timer = setTimeout(onTimeout, Math.max(0, left));
  };
  const pauseTimeLimit = () => {
    if (paused++ === 0) {
      clearTimeout(timer);
      left -= performance.now() - armedAt;
    }
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--paused === 0 && !settled && !controller.signal.aborted) arm();
    };
  };
  const timedOut = new Promise<'timeout'>((resolve) => {
    onTimeout = () => resolve('timeout');
    arm();
  });
  const cancelled = new Promise<'cancelled'>((resolve) => {
    controller.signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
  });
  const started = performance.now();
  try {
    const outcome = await Promise.race([
      Promise.resolve().then(() =>
        tool.run(input, { ...context, signal: controller.signal, pauseTimeLimit }),
      ),
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
    settled = true;
    clearTimeout(timer);
    context.signal.removeEventListener('abort', onAbort);
  }
}
