/**
 * `--check` for MCP: starts every configured server once (waiting for its whole start, unlike a
 * turn), lists its state and tool count, closes it. One line per server; a server that fails makes
 * the check fail. When the tools AGENT_TOOLS allows are more than AGENT_MAX_TOOLS, a line says how
 * each request chooses among them.
 */
import { silentLogger } from '../silent-logger.js';
import { filterTools } from '../tools/registry.js';
import { DEFAULT_MAX_TOOLS } from '../tools/tool-cap.js';
import type { Tool } from '../tools/types.js';
import { type McpServerConfig, mcpSecrets } from './mcp-config.js';
import { DEFAULT_MCP_START_TIMEOUT_MS } from './mcp-server.js';
import { McpToolSource } from './mcp-tools.js';

export interface CheckMcpOptions {
  startTimeoutMs?: number;
  /** AGENT_MAX_TOOLS. */
  maxTools?: number;
  /** AGENT_TOOLS. */
  allow?: string[];
  /** Names of Scout's own tools: they count towards the cap. */
  builtInTools?: readonly string[];
}

export async function checkMcpServers(
  servers: readonly McpServerConfig[],
  options: CheckMcpOptions = {},
): Promise<{ ok: boolean; lines: string[] }> {
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS;
  const builtIn = options.builtInTools ?? [];
  const source = new McpToolSource(servers, {
    logger: silentLogger,
    secrets: mcpSecrets(servers),
    reservedNames: builtIn,
    startTimeoutMs,
    firstListWaitMs: startTimeoutMs + 1_000,
  });
  try {
    const notices = await source.prepare(new AbortController().signal);
    const lines = source.status().map((s) => {
      const state =
        s.state === 'ready'
          ? `ready, ${s.tools} tool${s.tools === 1 ? '' : 's'}`
          : `${s.state} — ${s.problem ?? 'not started'}`;
      return `MCP server ${s.name} (${s.transport}): ${state}`;
    });
    // Tools left out (invalid or oversized schema, name clash) are worth a line too; unavailability
    // is above.
    lines.push(...notices.filter((n) => !n.includes('is unavailable')).map((n) => `  • ${n}`));
    const cap = capLine(source, options, builtIn);
    if (cap) lines.push(cap);
    return { ok: source.status().every((s) => s.state === 'ready'), lines };
  } finally {
    await source.close();
  }
}

/** The cap line, or undefined when every allowed tool goes with every request. */
function capLine(
  source: McpToolSource,
  options: CheckMcpOptions,
  builtIn: readonly string[],
): string | undefined {
  const maxTools = options.maxTools ?? DEFAULT_MAX_TOOLS;
  const allow = options.allow ?? [];
  const fromMcp = filterTools(source.tools(), allow).length;
  // Only names are read: Scout's own tools are not built for a check.
  const own = filterTools(
    builtIn.map((name) => ({ name }) as Tool),
    allow,
  ).length;
  const total = fromMcp + own;
  if (total <= maxTools) return undefined;
  return `Tools: ${total} (${own} built-in, ${fromMcp} from MCP servers), over AGENT_MAX_TOOLS=${maxTools}: each request offers the built-in tools, those enabled with /tools enable, then the most relevant to the question, ${maxTools} in all`;
}
