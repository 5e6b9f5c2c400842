/**
 * AGENT_MAX_TOOLS as the registry applies it: what one request offers when there are more tools
 * than the cap — Scout's own tools always, then the channel's picks, then relevance to the question
 * (in any script), then configuration order.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import * as z from '../../src/schema/zod.js';
import { channelTools } from '../../src/core/channel-tools.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { toolTerms } from '../../src/tools/tool-cap.js';
import type { Tool, ToolSource } from '../../src/tools/types.js';

const tool = (name: string, description: string, server?: string): Tool => ({
  name,
  description,
  inputSchema: z.object({}),
  ...(server ? { server } : {}),
  run: async () => ({ text: name }),
});

const builtIn = [tool('web_search', 'Search the web'), tool('fetch_url', 'Read one page')];
const mcpTools = [
  tool('docs__search_pages', 'Full-text search in the team wiki', 'docs'),
  tool('tracker__createIssue', 'Opens a ticket in the bug tracker', 'tracker'),
  tool('weather__forecast', 'Weather forecast for a city', 'weather'),
  tool('cal__list_events', '列出日历中的会议和活动', 'cal'),
];
const source: ToolSource = { tools: () => mcpTools };
const names = (defs: { name: string }[]) => defs.map((d) => d.name);

describe('AGENT_MAX_TOOLS', () => {
  it('sends every tool when within the cap', () => {
    const registry = createToolRegistry(builtIn, { logger: silentLogger, sources: [source], maxTools: 10 });
    expect(names(registry.definitions({ question: 'anything' }))).toHaveLength(6);
  });

  it('over the cap: built-ins, then the most relevant to the question, in the original order', () => {
    const registry = createToolRegistry(builtIn, { logger: silentLogger, sources: [source], maxTools: 3 });
    expect(names(registry.definitions({ question: 'Will it rain in Lyon? Check the forecast' }))).toEqual([
      'web_search',
      'fetch_url',
      'weather__forecast',
    ]);
    // camelCase names split into words; Chinese is segmented into words too.
    expect(names(registry.definitions({ question: 'create an issue for this bug' }))).toContain(
      'tracker__createIssue',
    );
    expect(names(registry.definitions({ question: '明天有什么会议？' }))).toContain('cal__list_events');
    // Nothing relevant: configuration order fills the room.
    expect(names(registry.definitions({ question: 'hello' }))).toEqual([
      'web_search',
      'fetch_url',
      'docs__search_pages',
    ]);
  });

  it('a channel’s enabled tools come before relevance; its disabled ones never come', () => {
    const registry = createToolRegistry(builtIn, { logger: silentLogger, sources: [source], maxTools: 3 });
    const channel = channelTools(registry, ['-weather__*', '+cal__*'], 'Will it rain? forecast please');
    expect(names(channel.definitions())).toEqual(['web_search', 'fetch_url', 'cal__list_events']);
  });

  it('never drops a built-in tool, even under a cap smaller than their number', () => {
    const registry = createToolRegistry(builtIn, { logger: silentLogger, sources: [source], maxTools: 1 });
    expect(names(registry.definitions({ question: 'forecast' }))).toEqual(['web_search', 'fetch_url']);
  });

  it('splits tool names and text into words', () => {
    expect(toolTerms('tracker__createIssue')).toEqual(['tracker', 'create', 'issue']);
    expect(toolTerms('list-events_now')).toEqual(['list', 'events', 'now']);
  });
});
