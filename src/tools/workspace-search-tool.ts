/**
 * `search_workspace` (issue 59): the team's own conversations, searched as the asker through the
 * capability the adapter handed over with the message (src/search/workspace-search.ts). Each message
 * found becomes a numbered source like a web result (title "#channel · author · date", link = its
 * permalink), so the answer cites it and References lists it beside web pages. Message text is
 * untrusted: control characters go, every message is one bounded line, and the executors show it
 * delimited as data (observations.ts). Permalinks are not added to fetch_url's provenance: they open
 * only for people signed in to the workspace.
 *
 * A problem that will not go away within the turn (no token, a missing scope or permission, the rate
 * limit) is said once, as the failed step, and the tool refuses further calls of the turn at once.
 */
import { isAbortError } from '../errors.js';
import { formatToolResults } from '../search/format-results.js';
import type { SearchResult } from '../search/types.js';
import { type WorkspaceHit, type WorkspaceSearch, WorkspaceSearchError } from '../search/workspace-search.js';
import * as z from '../schema/zod.js';
import { MAX_QUERY_CHARS } from './web-search-tool.js';
import type { Tool, ToolRegistry } from './types.js';
import { stripControlChars } from './untrusted-text.js';

export const WORKSPACE_SEARCH_TOOL_NAME = 'search_workspace';
export const WORKSPACE_SEARCH_DESCRIPTION =
  "Search the team's own messages in this workspace (what colleagues wrote: decisions, plans, numbers, links), as the person asking. Use it for questions about the team, its projects or anything said here before. Give `after`/`before` (YYYY-MM-DD) when the question names a period. Cite the messages like web sources.";

/** Messages a search hands the model. */
export const WORKSPACE_HITS = 8;
/** Characters of one message the model reads (a long message is cut, not left out). */
export const HIT_CHARS = 600;
/** Characters of a channel or author name in a source title. */
const NAME_CHARS = 80;

const day = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/), z.describe('A date, YYYY-MM-DD'));

const inputSchema = z.object({
  query: z
    .string()
    .check(
      z.trim(),
      z.minLength(1),
      z.maxLength(MAX_QUERY_CHARS),
      z.describe('Keywords of what was said (names, project words); specific'),
    ),
  after: z.optional(day),
  before: z.optional(day),
});
export type WorkspaceSearchInput = z.infer<typeof inputSchema>;

/** Capabilities whose problem this turn already met (one per message, so per turn). */
const failed = new WeakMap<WorkspaceSearch, string>();

/** One line of plain text, at most `max` characters (cut on a character, with "…"). */
export function boundedLine(text: string, max: number): string {
  const line = stripControlChars(text).replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const chars = Array.from(line);
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join('')}…`;
}

/** A hit as a numbered source: "#channel · author · 2026-03-14", linked to the message. */
export function hitToSource(hit: WorkspaceHit): SearchResult {
  const date = /^\d{4}-\d{2}-\d{2}/.exec(hit.date)?.[0];
  const channel = boundedLine(hit.channel, NAME_CHARS).replace(/^#/, '');
  const title = [`#${channel}`, boundedLine(hit.author, NAME_CHARS), date].filter(Boolean).join(' · ');
  return {
    title,
    url: hit.permalink,
    snippet: boundedLine(hit.text, HIT_CHARS),
    ...(date ? { published: date } : {}),
  };
}

function parseDay(value: string | undefined, endOfDay: boolean): Date | undefined {
  if (!value) return undefined;
  const at = new Date(`${value}T${endOfDay ? '23:59:59' : '00:00:00'}Z`);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

export function createWorkspaceSearchTool(): Tool<WorkspaceSearchInput> {
  return {
    name: WORKSPACE_SEARCH_TOOL_NAME,
    description: WORKSPACE_SEARCH_DESCRIPTION,
    inputSchema,
    async run({ query, after, before }, context) {
      const workspace = context.workspaceSearch;
      if (!workspace || workspace.unavailable) {
        const why = workspace?.unavailable?.reason ?? 'this conversation cannot search the workspace';
        return { isError: true, text: `Workspace search is not available: ${why}. Answer without it.` };
      }
      const earlier = failed.get(workspace);
      if (earlier) return { isError: true, text: earlier };
      try {
        const afterAt = parseDay(after, false);
        const beforeAt = parseDay(before, true);
        const found = await workspace.search(query, {
          limit: WORKSPACE_HITS,
          signal: context.signal,
          ...(afterAt ? { after: afterAt } : {}),
          ...(beforeAt ? { before: beforeAt } : {}),
        });
        const sources = found.hits
          .filter((h) => /^https?:\/\//.test(h.permalink))
          .slice(0, WORKSPACE_HITS)
          .map(hitToSource);
        const count = sources.length === 1 ? '1 message' : `${sources.length} messages`;
        // The step shows this text (the places and the count); the model reads the sources renumbered.
        const head = `Searched ${found.places} for "${boundedLine(query, 120)}": ${count} found.`;
        return { text: sources.length > 0 ? `${head}\n${formatToolResults(sources)}` : head, sources };
      } catch (err) {
        if (isAbortError(err) || context.signal.aborted) throw err;
        if (err instanceof WorkspaceSearchError && err.problem !== 'failed') {
          const text = `Workspace search is not available: ${err.message}. Do not call ${WORKSPACE_SEARCH_TOOL_NAME} again for this request; answer without it.`;
          failed.set(workspace, text);
          return { isError: true, text };
        }
        const message = err instanceof Error ? err.message : String(err);
        return { isError: true, text: `Workspace search failed: ${message}` };
      }
    },
  };
}

/**
 * The registry a turn sees: search_workspace only where the message carries a workspace that can be
 * searched for it (a surface that serves it, a token to search with).
 */
export function withWorkspaceSearch(
  registry: ToolRegistry,
  workspace: WorkspaceSearch | undefined,
): ToolRegistry {
  if (workspace && !workspace.unavailable) return registry;
  if (!registry.has(WORKSPACE_SEARCH_TOOL_NAME)) return registry;
  const offered = (name: string) => name !== WORKSPACE_SEARCH_TOOL_NAME;
  return {
    ...registry,
    definitions: (view = {}) => {
      const enabled = view.enabled;
      return registry.definitions({
        ...view,
        enabled: (name) => offered(name) && (enabled ? enabled(name) : true),
      });
    },
    has: (name) => offered(name) && registry.has(name),
  };
}
