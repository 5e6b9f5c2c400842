/**
 * Every configured MCP server as one tool source for the registry. Each server's tools appear as
 * `<server>__<tool>` with their JSON Schema checked (an invalid schema or a name clash drops that one
 * tool with a notice), a time limit, approval for tools that may change something (unless the server
 * is `trusted`), and results turned into capped text. Servers start lazily on the first turn that
 * may use tools; `prepare` waits for them within a bound, so a slow or broken server costs a notice,
 * never the turn.
 */
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import * as z from '../schema/zod.js';
import type { Tool, ToolSource } from '../tools/types.js';
import { type ArgumentCheck, compileSchema, toolParametersFrom } from './json-schema.js';
import { DEFAULT_MCP_TOOL_TIMEOUT_MS, type McpServerConfig } from './mcp-config.js';
import { mcpResultToOutput } from './mcp-result.js';
import { DEFAULT_MCP_START_TIMEOUT_MS, McpServerConnection, type McpServerState } from './mcp-server.js';
import { TOOL_NAME_RULE, namespacedToolName } from './tool-names.js';

/** Providers cap function descriptions; long MCP descriptions are cut to this. */
const MAX_DESCRIPTION_CHARS = 1_024;

export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: McpServerState;
  tools: number;
  problem?: string;
}

export interface McpToolSourceOptions {
  logger: Logger;
  /** `env` and `headers` values: scrubbed from any text taken from a server. */
  secrets?: readonly string[];
  /** Names of Scout's own tools: an MCP tool may not take one. */
  reservedNames?: readonly string[];
  startTimeoutMs?: number;
  backoff?: { baseMs: number; maxMs: number };
}

export class McpToolSource implements ToolSource {
  private readonly connections: McpServerConnection[];
  private current: Tool[] = [];
  /** Notices waiting for the next turn (shown once each). */
  private pending: string[] = [];
  /** Compiled input schemas by server, tool and schema text: a refresh does not recompile. */
  private readonly checks = new Map<string, ArgumentCheck | { invalid: string }>();
  private readonly reported = new Set<string>();
  private readonly log: Logger;

  constructor(
    private readonly servers: readonly McpServerConfig[],
    private readonly options: McpToolSourceOptions,
  ) {
    this.log = options.logger.child({ component: 'mcp' });
    this.connections = servers.map(
      (config) =>
        new McpServerConnection({
          config,
          logger: options.logger,
          secrets: options.secrets ?? [],
          ...(options.startTimeoutMs ? { startTimeoutMs: options.startTimeoutMs } : {}),
          ...(options.backoff ? { backoff: options.backoff } : {}),
          onToolsChanged: () => this.rebuild(),
          onNotice: (text) => this.pending.push(text),
        }),
    );
  }

  tools(): Tool[] {
    return this.current;
  }

  /**
   * Starts servers not started yet and waits for starts in progress, at most the start bound (or
   * until `signal` aborts). Returns this turn's notices: servers unavailable, tools dropped.
   */
  async prepare(signal: AbortSignal): Promise<string[]> {
    const bound = this.options.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS;
    const starts = this.connections.map((c) => (c.state === 'idle' ? c.start() : c.settled()));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(starts),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, bound + 1_000);
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    ]);
    clearTimeout(timer);
    const notices = this.pending;
    this.pending = [];
    for (const c of this.connections) {
      if (c.state === 'failed' || c.state === 'starting') {
        notices.push(
          `The MCP server "${c.name}" is unavailable (${c.problem ?? 'still starting'}); its tools cannot be used now.`,
        );
      }
    }
    return [...new Set(notices)];
  }

  status(): McpServerStatus[] {
    return this.connections.map((c, i) => ({
      name: c.name,
      transport: this.servers[i]!.transport,
      state: c.state,
      tools: this.current.filter((t) => t.server === c.name).length,
      ...(c.problem ? { problem: c.problem } : {}),
    }));
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.connections.map((c) => c.close()));
  }

  /** Builds the registry's view of every server's tools, in configuration order. */
  private rebuild(): void {
    const taken = new Set(this.options.reservedNames ?? []);
    const next: Tool[] = [];
    for (const [index, connection] of this.connections.entries()) {
      const config = this.servers[index]!;
      for (const tool of connection.tools) {
        const built = this.toTool(config, connection, tool, taken);
        if (!built) continue;
        taken.add(built.name);
        next.push(built);
      }
    }
    this.current = next;
  }

  private toTool(
    config: McpServerConfig,
    connection: McpServerConnection,
    tool: McpTool,
    taken: ReadonlySet<string>,
  ): Tool | undefined {
    const name = namespacedToolName(config.name, tool.name);
    if (!TOOL_NAME_RULE.test(name) || taken.has(name)) {
      this.reportOnce(
        `clash:${config.name}:${tool.name}`,
        `The MCP tool "${tool.name}" of "${config.name}" clashes with another tool's name (${name}); it was left out.`,
      );
      return undefined;
    }
    const schema = tool.inputSchema as Record<string, unknown>;
    const key = `${config.name}\0${tool.name}\0${JSON.stringify(schema)}`;
    let check = this.checks.get(key);
    if (!check) {
      try {
        check = compileSchema(schema);
      } catch (err) {
        check = { invalid: err instanceof Error ? err.message : String(err) };
      }
      this.checks.set(key, check);
    }
    if (typeof check !== 'function') {
      this.log.warn({ tool: name, problem: check.invalid }, 'MCP tool with an invalid input schema left out');
      this.reportOnce(
        `schema:${key}`,
        `The MCP tool "${tool.name}" of "${config.name}" has an invalid input schema; it was left out.`,
      );
      return undefined;
    }
    const validate = check;
    const timeoutMs = config.timeoutMs ?? DEFAULT_MCP_TOOL_TIMEOUT_MS;
    const description = (tool.description ?? tool.title ?? tool.name).slice(0, MAX_DESCRIPTION_CHARS);
    const title = tool.title ?? tool.annotations?.title;
    return {
      name,
      description,
      server: config.name,
      ...(title ? { title } : {}),
      // A tool that does not say it only reads may change something (the MCP spec's default).
      needsApproval: config.trusted !== true && tool.annotations?.readOnlyHint !== true,
      parameters: toolParametersFrom(schema),
      inputSchema: z.unknown().check(
        z.superRefine((value, ctx) => {
          for (const message of validate(value)) ctx.addIssue({ code: 'custom', message });
        }),
      ),
      timeoutMs,
      run: async (input, context) =>
        mcpResultToOutput(
          await connection.callTool(
            tool.name,
            (input ?? {}) as Record<string, unknown>,
            context.signal,
            timeoutMs,
          ),
        ),
    };
  }

  private reportOnce(key: string, text: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.pending.push(text);
  }
}
