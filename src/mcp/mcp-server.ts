/**
 * One MCP server as Scout runs it, through the official SDK client: started on first use, its tool
 * list kept current (`tools/list_changed`), restarted with exponential backoff when it dies, closed
 * at shutdown. Nothing here throws at the caller except `callTool`, whose errors are the tool error
 * the model reads. Problems are described in our own words: a server's error text may quote its URL
 * or headers, so anything taken from it passes through the secret scrubber first.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { redactSecrets } from '../llm/redact.js';
import type { Logger } from '../logger.js';
import { lenientValidator } from './lenient-validator.js';
import type { McpCallResult } from './mcp-result.js';
import type { McpServerConfig } from './mcp-config.js';

export type McpServerState = 'idle' | 'starting' | 'ready' | 'failed' | 'closed';

/** A server gets this long to start and list its tools. */
export const DEFAULT_MCP_START_TIMEOUT_MS = 15_000;
/** Largest reply read from a stdio server; a bigger one closes the connection (the SDK's own bound). */
export const MAX_STDIO_REPLY_BYTES = 10 * 1024 * 1024;
/** A tool list of more pages than this is cut (a server paging forever must not hang the start). */
const MAX_TOOL_PAGES = 20;
/** A server that stayed up this long starts its backoff afresh when it dies. */
const STABLE_UPTIME_MS = 60_000;
const STDERR_LINE_CHARS = 500;

export interface McpServerOptions {
  config: McpServerConfig;
  logger: Logger;
  /** Values to scrub from any text taken from the server's errors. */
  secrets: readonly string[];
  startTimeoutMs?: number;
  backoff?: { baseMs: number; maxMs: number };
  /** The tool list changed (started, refreshed, stopped). */
  onToolsChanged(): void;
  /** Something the users of the next turn should know (it stopped, it wrote garbage). */
  onNotice(text: string): void;
}

export class McpServerConnection {
  state: McpServerState = 'idle';
  /** The tools of the last successful listing; kept while the server restarts. */
  tools: McpTool[] = [];
  /** A listing has succeeded at least once (`tools` is the server's, not the empty start). */
  listed = false;
  /** Why it is not ready, in words safe to show. */
  problem: string | undefined;
  private client: Client | undefined;
  /** The client of a start in progress: closing it ends a handshake or listing that hangs. */
  private connecting: Client | undefined;
  /** The process of a stdio start in progress, told to stop at once by `close`. */
  private connectingProcess: StdioClientTransport | undefined;
  private starting: Promise<void> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private readyAt = 0;
  private lastTransportError: string | undefined;
  private warnedGarbage = false;
  private readonly log: Logger;

  constructor(private readonly options: McpServerOptions) {
    this.log = options.logger.child({ component: 'mcp', server: options.config.name });
  }

  get name(): string {
    return this.options.config.name;
  }

  /** Starts the server unless it runs or is starting; resolves when it is ready or has failed. */
  start(): Promise<void> {
    if (this.state === 'ready' || this.state === 'closed') return Promise.resolve();
    this.starting ??= this.connect().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Resolves when a start in progress (first or restart) has ended; at once otherwise. */
  settled(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<McpCallResult> {
    const client = this.client;
    if (this.state !== 'ready' || !client) {
      throw new Error(
        `tool unavailable: the MCP server "${this.name}" is not running (${this.problem ?? 'starting'})`,
      );
    }
    try {
      return (await client.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout: timeoutMs,
      })) as McpCallResult;
    } catch (err) {
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
        throw new Error(
          `the MCP server "${this.name}" did not answer within ${Math.round(timeoutMs / 1000)} s`,
        );
      }
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
        const tooLarge = /exceeded maximum size/i.test(this.lastTransportError ?? '');
        throw new Error(
          tooLarge
            ? `the MCP server "${this.name}" sent a reply larger than ${MAX_STDIO_REPLY_BYTES / 1024 / 1024} MB; it is being restarted`
            : `the MCP server "${this.name}" stopped during the call; it is being restarted`,
        );
      }
      throw new Error(this.describe(err));
    }
  }

  async close(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.restartTimer);
    const client = this.client;
    this.client = undefined;
    const stuck = this.connecting;
    if (stuck) {
      // A server still in its start has not answered it: the shutdown (and `--once`'s exit) waits
      // neither for its start bound nor for the SDK's grace after closing its stdin (2 s, then
      // SIGTERM and 2 s more). It is told to stop now; the SDK's close goes on without being waited
      // for (its timers hold no process open), and the start ends when its client closes.
      const pid = this.connectingProcess?.pid;
      if (pid) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // Already gone.
        }
      }
      void stuck.close().catch(() => undefined);
    }
    await client?.close().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const { config } = this.options;
    const timeout = this.options.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS;
    this.state = 'starting';
    this.lastTransportError = undefined;
    let client = this.newClient();
    this.connecting = client;
    try {
      if (config.transport === 'stdio') {
        const transport = this.stdioTransport(config);
        this.connectingProcess = transport;
        await client.connect(transport, { timeout });
      } else {
        try {
          await client.connect(
            new StreamableHTTPClientTransport(new URL(config.url), this.httpOptions(config)),
            { timeout },
          );
        } catch (err) {
          // Servers of the 2024-11-05 protocol speak only the older HTTP+SSE transport.
          if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) throw err;
          this.log.info('Streamable HTTP failed: trying the SSE transport');
          await client.close().catch(() => undefined);
          if (this.isClosed()) return;
          client = this.newClient();
          this.connecting = client;
          await client.connect(new SSEClientTransport(new URL(config.url), this.httpOptions(config)), {
            timeout,
          });
        }
      }
      if (this.isClosed()) {
        await client.close().catch(() => undefined);
        return;
      }
      const tools = await listAllTools(client, timeout);
      if (this.isClosed()) {
        await client.close().catch(() => undefined);
        return;
      }
      this.tools = tools;
      this.listed = true;
      this.client = client;
      this.state = 'ready';
      this.problem = undefined;
      this.readyAt = Date.now();
      this.log.info({ tools: this.tools.length }, 'MCP server ready');
      this.options.onToolsChanged();
    } catch (err) {
      await client.close().catch(() => undefined);
      if (this.isClosed()) return;
      this.problem = this.describe(err);
      this.log.warn({ problem: this.problem }, 'MCP server failed to start');
      this.state = 'failed';
      this.scheduleRestart();
    } finally {
      if (this.connecting === client) {
        this.connecting = undefined;
        this.connectingProcess = undefined;
      }
    }
  }

  /** Read through a call: `close()` may run while `connect()` awaits (TypeScript narrows the field). */
  private isClosed(): boolean {
    return this.state === 'closed';
  }

  private newClient(): Client {
    const client = new Client(
      { name: 'scout', version: '0.1.0' },
      {
        jsonSchemaValidator: lenientValidator,
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (error) {
                this.log.warn({ problem: this.describe(error) }, 'MCP tool list refresh failed');
                return;
              }
              if (!tools || this.client !== client) return;
              this.tools = tools;
              this.log.info({ tools: tools.length }, 'MCP tool list changed');
              this.options.onToolsChanged();
            },
          },
        },
      },
    );
    client.onclose = () => this.onClosed(client);
    client.onerror = (err) => this.onTransportError(err);
    return client;
  }

  private stdioTransport(config: Extract<McpServerConfig, { transport: 'stdio' }>): StdioClientTransport {
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      // Only the SDK's safe variables (PATH, HOME, …) plus the server's own: never Scout's keys.
      env: { ...getDefaultEnvironment(), ...(config.env ?? {}) },
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: 'pipe',
    });
    // Piped, not inherited: a chatty server must not scribble over the terminal chat.
    transport.stderr?.on('data', (chunk: Buffer) => {
      const line = chunk.toString('utf8').trim().slice(0, STDERR_LINE_CHARS);
      if (line) this.log.debug({ stderr: redactSecrets(line, this.options.secrets) }, 'MCP server stderr');
    });
    return transport;
  }

  private httpOptions(config: Extract<McpServerConfig, { transport: 'http' }>) {
    return config.headers ? { requestInit: { headers: config.headers } } : {};
  }

  private onTransportError(err: Error): void {
    this.lastTransportError = err.message;
    // A line on stdout that is not JSON-RPC: the SDK skips it; say so once, it usually means a server
    // that logs to stdout.
    if (err instanceof SyntaxError || /JSON|Unexpected token|invalid_/i.test(err.message)) {
      if (this.warnedGarbage) return;
      this.warnedGarbage = true;
      this.log.warn('MCP server wrote something that is not MCP to stdout: ignored');
      this.options.onNotice(`The MCP server "${this.name}" printed non-MCP output; it was ignored.`);
      return;
    }
    this.log.warn({ problem: redactSecrets(err.message, this.options.secrets) }, 'MCP transport error');
  }

  private onClosed(client: Client): void {
    if (this.client !== client || this.state === 'closed') return;
    this.client = undefined;
    this.state = 'failed';
    this.problem = 'it stopped; restarting';
    if (Date.now() - this.readyAt > STABLE_UPTIME_MS) this.failures = 0;
    this.log.warn('MCP server stopped: restarting');
    this.options.onNotice(`The MCP server "${this.name}" stopped; restarting it.`);
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    const { baseMs, maxMs } = this.options.backoff ?? { baseMs: 1_000, maxMs: 60_000 };
    const delay = Math.min(maxMs, baseMs * 2 ** this.failures);
    this.failures += 1;
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (this.state === 'failed') void this.start();
    }, delay);
    this.restartTimer.unref();
  }

  /** The failure in words fit for a chat notice and a log line. */
  private describe(err: unknown): string {
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) return 'it did not answer in time';
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT') return 'its command was not found';
    if (code === 'EACCES') return 'its command cannot be run (permission denied)';
    if (typeof code === 'number' && code >= 400) return `HTTP ${code}`;
    if (code === 'ECONNREFUSED' || /ECONNREFUSED|fetch failed/i.test(String((err as Error)?.message)))
      return 'connection refused';
    const message = err instanceof Error ? err.message : String(err);
    return redactSecrets(message, this.options.secrets).slice(0, 300);
  }
}

async function listAllTools(client: Client, timeout: number): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
    const result = await client.listTools(cursor ? { cursor } : undefined, { timeout });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}
