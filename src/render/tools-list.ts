/**
 * The `/tools` listing in words (src/core/tools-command.ts gathers it): tools grouped by where they
 * come from, with their notes, cut to fit one Discord message. Said here, in the asker's locale,
 * because where the list is cut depends on the length of its words in that locale.
 */
import type { Locale } from '../i18n/locale.js';
import { t } from '../i18n/translate.js';

/** Room for the list in one Discord message (2,000 characters) with the title. */
const MAX_LIST_CHARS = 1_800;

export interface ListedTool {
  name: string;
  asks: boolean;
  off: boolean;
}

export type ToolGroup =
  | { kind: 'builtin'; tools: ListedTool[] }
  | { kind: 'server'; server: string; state: string; tools: ListedTool[] }
  | { kind: 'unavailable'; server: string; problem: string };

export interface ToolListing {
  groups: ToolGroup[];
  /** Tools this channel has on, and AGENT_MAX_TOOLS (when set). */
  on: number;
  max?: number;
}

export function toolsListText(listing: ToolListing, locale: Locale): string {
  const lines = listing.groups.map((group) => groupLine(group, locale));
  if (lines.length === 0) return t(locale, 'tools.none');
  const { on, max } = listing;
  const capped = max !== undefined && on > max ? `\n${t(locale, 'tools.capped', { count: on, max })}` : '';
  return `${t(locale, 'tools.title')}\n${capText(lines.join('\n'), locale, MAX_LIST_CHARS - capped.length)}${capped}`;
}

function groupLine(group: ToolGroup, locale: Locale): string {
  switch (group.kind) {
    case 'builtin':
      return `• ${t(locale, 'tools.builtin')}: ${entries(group.tools, locale)}`;
    case 'server':
      return `• ${t(locale, 'tools.server', { server: group.server, state: group.state })}: ${entries(group.tools, locale)}`;
    case 'unavailable':
      return `• ${t(locale, 'tools.unavailable', { server: group.server, problem: group.problem })}`;
  }
}

function entries(tools: ListedTool[], locale: Locale): string {
  return tools
    .map((tool) => {
      const notes = [
        ...(tool.asks ? [t(locale, 'tools.asks')] : []),
        ...(tool.off ? [t(locale, 'tools.off')] : []),
      ];
      return `\`${tool.name}\`${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
    })
    .join(', ');
}

function capText(text: string, locale: Locale, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const end = cut.lastIndexOf(', ');
  const shown = end > 0 ? cut.slice(0, end) : cut;
  const hidden = (text.slice(shown.length).match(/`[^`]+`/g) ?? []).length;
  return `${shown} ${t(locale, 'tools.more', { count: hidden })}`;
}
