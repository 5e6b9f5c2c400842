import Keyv from 'keyv';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { silentLogger } from '../../src/logger.js';
import { createSearchService } from '../../src/search/search-service.js';
import { createDefaultTools } from '../../src/tools/default-tools.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import type { ToolContext } from '../../src/tools/types.js';
import { type FakeSearchServer, startFakeSearchServer } from '../helpers/fake-search-server.js';

let fake: FakeSearchServer;
beforeAll(async () => {
  fake = await startFakeSearchServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const context = (sessionKey = 's'): ToolContext => ({ sessionKey, signal: new AbortController().signal });

function setup(env: Record<string, string>) {
  const config = loadConfig({ DEEPSEEK_API_KEY: 'sk-test', ...env });
  const search = createSearchService(config, { searchCache: new Keyv() }, silentLogger);
  const tools = createDefaultTools({ search, config });
  return { search, tools, registry: createToolRegistry(tools, { logger: silentLogger }) };
}

describe('web_search tool', () => {
  it('has the exact name, description and query schema the model sees', () => {
    const { registry } = setup(fake.env('tavily'));
    expect(registry.definitions().find((d) => d.name === 'web_search')).toEqual({
      name: 'web_search',
      description:
        'Search the internet for real-time information. Use it for recent events, live data, current news, or to verify facts.',
      parameters: {
        type: 'object',
        properties: {
          query: {
            type: 'string',
            minLength: 1,
            maxLength: 400,
            description: 'Search keywords; specific, clear and targeted',
          },
        },
        required: ['query'],
      },
    });
  });

  it('refuses a runaway 10,062-character query without calling the search API, naming the bound', async () => {
    const { registry } = setup(fake.env('tavily'));
    const output = await registry.execute(
      'web_search',
      JSON.stringify({ query: 'weather '.repeat(1258) }),
      context(),
    );
    expect(output.isError).toBe(true);
    expect(output.text).toMatch(/query: .*400/);
    expect(fake.requests).toHaveLength(0);
  });

  it('returns compact numbered text, sources and the cached flag; uses the session cache', async () => {
    fake.script('tokio', [{ title: 'Tokio', url: 'https://tokio.rs/', snippet: 'An async runtime.' }]);
    const { registry } = setup(fake.env('tavily'));
    const first = await registry.execute('web_search', '{"query":"tokio"}', context());
    expect(first).toEqual({
      text: '[1] Tokio — https://tokio.rs/\n    An async runtime.',
      sources: [{ title: 'Tokio', url: 'https://tokio.rs/', snippet: 'An async runtime.' }],
      cached: false,
    });
    expect((await registry.execute('web_search', '{"query":"Tokio"}', context())).cached).toBe(true);
    expect((await registry.execute('web_search', '{"query":"tokio"}', context('other'))).cached).toBe(false);
    expect(fake.requests).toHaveLength(2);
  });

  it('a failed search is a tool result text, not an exception', async () => {
    const { registry } = setup(fake.env('tavily'));
    fake.failWith = { status: 500 };
    const out = await registry.execute('web_search', '{"query":"x"}', context());
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/^Search failed: tavily server error \(HTTP 500\)/);
  });

  it('an empty query is rejected before any request', async () => {
    const { registry } = setup(fake.env('tavily'));
    const out = await registry.execute('web_search', '{"query":"   "}', context());
    expect(out.isError).toBe(true);
    expect(fake.requests).toHaveLength(0);
  });

  it('is only offered when search is available', () => {
    const { tools } = setup({ SEARCH_PROVIDER: 'none' });
    expect(tools.map((t) => t.name)).toEqual(['fetch_url', 'current_context']);
    expect(setup(fake.env('brave')).tools.map((t) => t.name)).toEqual([
      'web_search',
      'fetch_url',
      'current_context',
    ]);
  });
});
