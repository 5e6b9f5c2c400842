/**
 * Every configured MCP server as one tool source for the registry. Each server's tools appear as
 * `<server>__<tool>` with their JSON Schema checked (an invalid or oversized schema or a name clash
 * drops that one tool with a notice), a time limit, approval for every call unless the operator's
 * config says otherwise (`trusted`, `autoApprove`: a server's own `readOnlyHint` is a claim from an
 * untrusted party), and results turned into capped text. Servers start lazily on the first turn that
 * may use tools and list in the background: only that first turn waits, briefly, for a first
 * listing; later turns use the last list each server gave, and one that has none is left out with a
 * notice. A slow or dead server never holds a turn.
 */
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import * as z from '../schema/zod.js';
import type { Tool, ToolSource } from '../tools/types.js';
import {
  type ArgumentCheck,
  MAX_INPUT_SCHEMA_CHARS,
  compileSchema,
  toolParametersFrom,
} from './json-schema.js';
import { DEFAULT_MCP_TOOL_TIMEOUT_MS, type McpServerConfig } from './mcp-config.js';
import { mcpResultToOutput } from './mcp-result.js';
import { McpServerConnection, type McpServerState } from './mcp-server.js';
import { TOOL_NAME_RULE, namespacedToolName } from './tool-names.js';

/** Providers cap function descriptions; long MCP descriptions are cut to this. */
const MAX_DESCRIPTION_CHARS = 1_024;
/** A tool's title is shown with its approval request: a line, not a page. */
const MAX_TITLE_CHARS = 100;
/**
 * The first turn that needs tools waits at most this long for servers that have never listed their
 * tools (a server over npx needs a moment); every other turn waits for none.
 */
export const DEFAULT_MCP_FIRST_LIST_WAIT_MS = 3_000;

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
  /** How long the first turn waits for first listings (`--check` waits for the whole start). */
  firstListWaitMs?: number;
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
  /** Servers whose first listing a turn has waited for already: no turn waits for them again. */
  private readonly waited = new Set<McpServerConnection>();
  /** The unavailability last told per server, so it is told once per change, not every turn. */
  private readonly told = new Map<string, string>();
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
   * Starts servers not started yet. Waits only for first listings no turn has waited for yet, at most
   * `firstListWaitMs` (or until `signal` aborts); restarts and refreshes run in the background while
   * turns use the last list. Returns this turn's notices: a server unavailable (once per change of
   * its problem), tools dropped.
   */
  async prepare(signal: AbortSignal): Promise<string[]> {
    for (const c of this.connections) if (c.state === 'idle') void c.start();
    const first = this.connections.filter((c) => !c.listed && !this.waited.has(c));
    if (first.length > 0 && !signal.aborted) {
      for (const c of first) this.waited.add(c);
      const bound = this.options.firstListWaitMs ?? DEFAULT_MCP_FIRST_LIST_WAIT_MS;
      let timer: NodeJS.Timeout | undefined;
      let onAbort = () => {};
      await Promise.race([
        Promise.all(first.map((c) => c.settled())),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, bound);
          onAbort = () => resolve();
          signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
    const notices = this.pending;
    this.pending = [];
    for (const c of this.connections) {
      if (c.state === 'ready' || c.state === 'closed') {
        this.told.delete(c.name);
        continue;
      }
      const problem = c.problem ?? 'still starting';
      if (this.told.get(c.name) === problem) continue;
      this.told.set(c.name, problem);
      notices.push(`The MCP server "${c.name}" is unavailable (${problem}); its tools cannot be used now.`);
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
    const text = JSON.stringify(schema);
    if (text.length > MAX_INPUT_SCHEMA_CHARS) {
      this.log.warn({ tool: name, chars: text.length }, 'MCP tool with an oversized input schema left out');
      this.reportOnce(
        `size:${config.name}:${tool.name}`,
        `The MCP tool "${tool.name}" of "${config.name}" has an input schema of ${Math.ceil(text.length / 1024)} KB, over the ${MAX_INPUT_SCHEMA_CHARS / 1024} KB limit; it was left out.`,
      );
      return undefined;
    }
    const key = `${config.name}\0${tool.name}\0${text}`;
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
    const title = (tool.title ?? tool.annotations?.title)?.slice(0, MAX_TITLE_CHARS);
    return {
      name,
      description,
      server: config.name,
      ...(title ? { title } : {}),
      // Annotations are the server's claims, not the operator's word: `readOnlyHint` never skips this.
      needsApproval: config.trusted !== true && !(config.autoApprove ?? []).includes(tool.name),
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
