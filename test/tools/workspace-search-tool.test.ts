/**
 * search_workspace (issue 59) on its own: registered only with WORKSPACE_SEARCH=on, listed by
 * /tools, offered only with a workspace that can search; hits become bounded, cleaned sources with
 * "#channel · author · date" titles and permalinks; dates reach the capability; a lasting problem is
 * said once and refused for the rest of the turn without calling the capability again.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { silentLogger } from '../../src/logger.js';
import { createSearchService } from '../../src/search/search-service.js';
import {
  type WorkspaceSearch,
  WorkspaceSearchError,
  type WorkspaceSearchOptions,
} from '../../src/search/workspace-search.js';
import { createDefaultTools } from '../../src/tools/default-tools.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import type { ToolContext } from '../../src/tools/types.js';
import {
  HIT_CHARS,
  WORKSPACE_SEARCH_TOOL_NAME,
  hitToSource,
  withWorkspaceSearch,
} from '../../src/tools/workspace-search-tool.js';
import Keyv from 'keyv';

function registryFor(env: Record<string, string>) {
  const config = loadConfig({ DEEPSEEK_API_KEY: 'sk-test', SEARCH_PROVIDER: 'none', ...env });
  const search = createSearchService(config, { searchCache: new Keyv() }, silentLogger);
  return createToolRegistry(createDefaultTools({ search, config }), { logger: silentLogger });
}

function workspace(
  search: (query: string, options: WorkspaceSearchOptions) => ReturnType<WorkspaceSearch['search']>,
  extra: Partial<WorkspaceSearch> = {},
): WorkspaceSearch {
  return { platform: 'Slack', places: 'public channels', search, ...extra };
}

const context = (workspaceSearch?: WorkspaceSearch): ToolContext => ({
  sessionKey: 's',
  signal: new AbortController().signal,
  ...(workspaceSearch ? { workspaceSearch } : {}),
});

describe('search_workspace', () => {
  it('exists only with WORKSPACE_SEARCH=on, is listed, and is offered only with a workspace', () => {
    expect(registryFor({}).has(WORKSPACE_SEARCH_TOOL_NAME)).toBe(false);
    const registry = registryFor({ WORKSPACE_SEARCH: 'on' });
    expect(registry.list?.().map((t) => t.name)).toContain(WORKSPACE_SEARCH_TOOL_NAME);
    const names = (r: typeof registry) => r.definitions().map((d) => d.name);
    expect(names(withWorkspaceSearch(registry, undefined))).not.toContain(WORKSPACE_SEARCH_TOOL_NAME);
    const unavailable = workspace(() => Promise.reject(new Error('no')), {
      unavailable: { problem: 'no-token', reason: 'no action token' },
    });
    expect(names(withWorkspaceSearch(registry, unavailable))).not.toContain(WORKSPACE_SEARCH_TOOL_NAME);
    const ok = workspace(() => Promise.resolve({ places: 'public channels', hits: [] }));
    expect(names(withWorkspaceSearch(registry, ok))).toContain(WORKSPACE_SEARCH_TOOL_NAME);
  });

  it('turns hits into bounded, cleaned sources and passes the dates', async () => {
    const registry = registryFor({ WORKSPACE_SEARCH: 'on' });
    let seen: WorkspaceSearchOptions | undefined;
    const long = `${'word '.repeat(400)}\u202eend`;
    const ws = workspace(async (_query, options) => {
      seen = options;
      return {
        places: 'public channels',
        hits: [
          {
            text: long,
            author: 'Dana\nEvil',
            channel: '#launch',
            date: '2026-03-02T10:00:00.000Z',
            permalink: 'https://x.slack.com/archives/C1/p1',
          },
          { text: 'no link', author: 'A', channel: 'b', date: '', permalink: 'javascript:alert(1)' },
        ],
      };
    });
    const out = await registry.execute(
      WORKSPACE_SEARCH_TOOL_NAME,
      JSON.stringify({ query: 'launch', after: '2026-03-01', before: '2026-03-31' }),
      context(ws),
    );
    expect(out.isError).toBeFalsy();
    expect(seen?.after?.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(seen?.before?.toISOString()).toBe('2026-03-31T23:59:59.000Z');
    expect(out.sources).toHaveLength(1);
    const [source] = out.sources!;
    expect(source?.title).toBe('#launch · Dana Evil · 2026-03-02');
    expect(source?.url).toBe('https://x.slack.com/archives/C1/p1');
    expect(source!.snippet.length).toBeLessThanOrEqual(HIT_CHARS);
    expect(source!.snippet).not.toContain('\u202e');
    expect(out.text).toContain('Searched public channels for "launch": 1 message found.');
  });

  it('a lasting problem is said once and the rest of the turn is refused without asking again', async () => {
    const registry = registryFor({ WORKSPACE_SEARCH: 'on' });
    let calls = 0;
    const ws = workspace(async () => {
      calls += 1;
      throw new WorkspaceSearchError('missing-scope', 'the Slack app lacks the scope search:read.public');
    });
    const first = await registry.execute(WORKSPACE_SEARCH_TOOL_NAME, '{"query":"a"}', context(ws));
    const second = await registry.execute(WORKSPACE_SEARCH_TOOL_NAME, '{"query":"b"}', context(ws));
    expect(first.isError).toBe(true);
    expect(first.text).toContain('search:read.public');
    expect(second).toEqual(first);
    expect(calls).toBe(1);
    const none = await registry.execute(WORKSPACE_SEARCH_TOOL_NAME, '{"query":"a"}', context());
    expect(none.isError).toBe(true);
  });

  it('hitToSource leaves out a missing date', () => {
    expect(
      hitToSource({ text: 't', author: 'a', channel: 'c', date: '', permalink: 'https://p' }).title,
    ).toBe('#c · a');
  });
});
