/**
 * `--check` for MCP: starts every configured server once, lists its state and tool count, closes
 * it. One line per server; a server that fails makes the check fail.
 */
import { silentLogger } from '../silent-logger.js';
import { type McpServerConfig, mcpSecrets } from './mcp-config.js';
import { McpToolSource } from './mcp-tools.js';

export async function checkMcpServers(
  servers: readonly McpServerConfig[],
  options: { startTimeoutMs?: number } = {},
): Promise<{ ok: boolean; lines: string[] }> {
  const source = new McpToolSource(servers, {
    logger: silentLogger,
    secrets: mcpSecrets(servers),
    ...(options.startTimeoutMs ? { startTimeoutMs: options.startTimeoutMs } : {}),
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
    // Tools left out (invalid schema, name clash) are worth a line too; unavailability is above.
    lines.push(...notices.filter((n) => !n.includes('is unavailable')).map((n) => `  • ${n}`));
    return { ok: source.status().every((s) => s.state === 'ready'), lines };
  } finally {
    await source.close();
  }
}
