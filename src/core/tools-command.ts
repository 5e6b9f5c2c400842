/**
 * `/tools`: lists the agent's tools grouped by where they come from (built-in or an MCP server, with
 * its state), marking those that ask first and those this channel turned off; `/tools enable|disable
 * <name|pattern>` stores a rule in the channel's settings. Listing starts MCP servers not started yet
 * (within their first-listing wait), so the list is what the next turn may offer; over AGENT_MAX_TOOLS
 * it says how each request chooses among them.
 */
import { joinText, phrase } from '../i18n/phrase.js';
import type { McpToolSource } from '../mcp/mcp-tools.js';
import { type ListedTool, type ToolGroup, toolsListText } from '../render/tools-list.js';
import type { CommandReply, Locale } from '../surface.js';
import type { ToolRegistry } from '../tools/types.js';
import { matchesPattern } from '../tools/tool-patterns.js';
import { addToolRule, toolEnabled } from './channel-tools.js';
import type { SettingsService } from './settings-service.js';

const PATTERN = /^[\w*-]{1,64}$/;
/** `/tools` waits at most this long for servers to start before listing what is there. */
const LIST_START_WAIT_MS = 10_000;

export interface ToolsCommandDeps {
  tools: ToolRegistry;
  mcp?: McpToolSource;
  settings: SettingsService;
}

/** Whether `/tools` arguments are a listing (empty) or `enable|disable <pattern>`. */
export function toolsArgumentsValid(args: string): boolean {
  return args.trim() === '' || /^(enable|disable)\s+\S+$/i.test(args.trim());
}

export async function runToolsCommand(
  deps: ToolsCommandDeps,
  args: string,
  ctx: { channelId: string; locale: Locale },
): Promise<CommandReply> {
  const match = /^(enable|disable)\s+(\S+)$/i.exec(args.trim());
  await deps.tools.prepare?.(AbortSignal.timeout(LIST_START_WAIT_MS));
  const settings = await deps.settings.get(ctx.channelId);
  // Said at once: where the list is cut to fit one message depends on its words' length in the locale.
  if (!match) return { text: listTools(deps, settings.toolRules ?? [], ctx.locale), changed: false };
  const enable = match[1]!.toLowerCase() === 'enable';
  const pattern = match[2]!;
  if (!PATTERN.test(pattern)) return { text: phrase('tools.bad-pattern'), changed: false };
  await deps.settings.update(ctx.channelId, {
    toolRules: addToolRule(settings.toolRules, enable, pattern),
  });
  const known = (deps.tools.list?.() ?? []).some((tool) => matchesPattern(pattern, tool.name));
  const text = phrase(enable ? 'tools.enabled' : 'tools.disabled', { pattern });
  return {
    text: known ? text : joinText([text, phrase('tools.no-match', { pattern })], '\n'),
    changed: true,
  };
}

function listTools(deps: ToolsCommandDeps, rules: string[], locale: Locale): string {
  const tools = deps.tools.list?.() ?? [];
  const byServer = new Map<string, ListedTool[]>();
  for (const tool of tools) {
    const listed = {
      name: tool.name,
      asks: Boolean(tool.needsApproval),
      off: !toolEnabled(tool.name, rules),
    };
    const key = tool.server ?? '';
    byServer.set(key, [...(byServer.get(key) ?? []), listed]);
  }
  const groups: ToolGroup[] = [];
  const builtIn = byServer.get('');
  if (builtIn) groups.push({ kind: 'builtin', tools: builtIn });
  for (const server of deps.mcp?.status() ?? []) {
    const listed = byServer.get(server.name);
    if (listed) groups.push({ kind: 'server', server: server.name, state: server.state, tools: listed });
    else if (server.problem)
      groups.push({ kind: 'unavailable', server: server.name, problem: server.problem });
  }
  const on = tools.filter((tool) => toolEnabled(tool.name, rules)).length;
  const max = deps.tools.maxTools;
  return toolsListText({ groups, on, ...(max !== undefined ? { max } : {}) }, locale);
}
