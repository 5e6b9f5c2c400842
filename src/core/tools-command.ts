/**
 * `/tools`: lists the agent's tools grouped by where they come from (built-in or an MCP server, with
 * its state), marking those that ask first and those this channel turned off; `/tools enable|disable
 * <name|pattern>` stores a rule in the channel's settings. Listing starts MCP servers not started yet
 * (within their first-listing wait), so the list is what the next turn may offer; over AGENT_MAX_TOOLS
 * it says how each request chooses among them.
 */
import { t } from '../i18n/translate.js';
import type { McpToolSource } from '../mcp/mcp-tools.js';
import type { CommandReply, Locale } from '../surface.js';
import type { ToolRegistry } from '../tools/types.js';
import { matchesPattern } from '../tools/tool-patterns.js';
import { addToolRule, toolEnabled } from './channel-tools.js';
import type { SettingsService } from './settings-service.js';

/** Room for the list in one Discord message (2,000 characters) with the title. */
const MAX_LIST_CHARS = 1_800;
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
  const { locale } = ctx;
  const match = /^(enable|disable)\s+(\S+)$/i.exec(args.trim());
  await deps.tools.prepare?.(AbortSignal.timeout(LIST_START_WAIT_MS));
  const settings = await deps.settings.get(ctx.channelId);
  if (!match) return { text: listTools(deps, settings.toolRules ?? [], locale), changed: false };
  const enable = match[1]!.toLowerCase() === 'enable';
  const pattern = match[2]!;
  if (!PATTERN.test(pattern)) return { text: t(locale, 'tools.bad-pattern'), changed: false };
  await deps.settings.update(ctx.channelId, {
    toolRules: addToolRule(settings.toolRules, enable, pattern),
  });
  const known = (deps.tools.list?.() ?? []).some((tool) => matchesPattern(pattern, tool.name));
  const text = t(locale, enable ? 'tools.enabled' : 'tools.disabled', { pattern });
  return { text: known ? text : `${text}\n${t(locale, 'tools.no-match', { pattern })}`, changed: true };
}

function listTools(deps: ToolsCommandDeps, rules: string[], locale: Locale): string {
  const tools = deps.tools.list?.() ?? [];
  const groups = new Map<string, string[]>();
  for (const tool of tools) {
    const notes = [
      ...(tool.needsApproval ? [t(locale, 'tools.asks')] : []),
      ...(toolEnabled(tool.name, rules) ? [] : [t(locale, 'tools.off')]),
    ];
    const entry = `\`${tool.name}\`${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
    const key = tool.server ?? '';
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  const lines: string[] = [];
  const builtIn = groups.get('');
  if (builtIn) lines.push(`• ${t(locale, 'tools.builtin')}: ${builtIn.join(', ')}`);
  for (const server of deps.mcp?.status() ?? []) {
    const entries = groups.get(server.name);
    if (entries) {
      lines.push(
        `• ${t(locale, 'tools.server', { server: server.name, state: server.state })}: ${entries.join(', ')}`,
      );
    } else if (server.problem) {
      lines.push(`• ${t(locale, 'tools.unavailable', { server: server.name, problem: server.problem })}`);
    }
  }
  if (lines.length === 0) return t(locale, 'tools.none');
  const on = tools.filter((tool) => toolEnabled(tool.name, rules)).length;
  const max = deps.tools.maxTools;
  const capped = max !== undefined && on > max ? `\n${t(locale, 'tools.capped', { count: on, max })}` : '';
  return `${t(locale, 'tools.title')}\n${capText(lines.join('\n'), locale, MAX_LIST_CHARS - capped.length)}${capped}`;
}

function capText(text: string, locale: Locale, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const end = cut.lastIndexOf(', ');
  const shown = end > 0 ? cut.slice(0, end) : cut;
  const hidden = (text.slice(shown.length).match(/`[^`]+`/g) ?? []).length;
  return `${shown} ${t(locale, 'tools.more', { count: hidden })}`;
}
