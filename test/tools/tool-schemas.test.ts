/**
 * What the model sees of Scout's own tools: the JSON Schemas of their arguments and the messages a
 * rejected call gets back, pinned word for word, so a change of how the schemas are written (zod
 * classic or zod/mini, issue 19) cannot drift what goes to the model unnoticed.
 */
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/env.js';
import { silentLogger } from '../../src/logger.js';
import type { SearchService } from '../../src/search/types.js';
import { createDefaultTools } from '../../src/tools/default-tools.js';
import { createToolRegistry } from '../../src/tools/registry.js';

const queries: string[] = [];
const search: SearchService = {
  available: true,
  providerName: 'tavily',
  async search(query) {
    queries.push(query);
    return { results: [], cached: false };
  },
  async clearSession() {},
};
const env = { SEARCH_TIMEOUT_MS: 1_000, FETCH_URL_POLICY: 'provenance', TIMEZONE: 'UTC' } as Config['env'];
const registry = createToolRegistry(createDefaultTools({ search, config: { env } }), {
  logger: silentLogger,
});
const context = () => ({ sessionKey: 's', signal: new AbortController().signal });

const webSearchSchema = {
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
};
const fetchUrlSchema = {
  type: 'object',
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description: 'The http(s) URL of a public web page or PDF to read',
    },
    focus: {
      type: 'string',
      maxLength: 500,
      description:
        "What you are looking for in the page (a question, names, a figure). When the page is long, the passages most relevant to it are returned. Default: the user's question.",
    },
    part: {
      type: 'integer',
      minimum: 1,
      maximum: 50,
      description:
        'Read the page in order, this part of it (1 = the start). Use it to read on when a result says which parts exist.',
    },
  },
  required: ['url'],
};

describe("the built-in tools' schemas, as the model sees them", () => {
  it('sends the same JSON Schema for every tool', () => {
    expect(registry.definitions()).toStrictEqual([
      {
        name: 'web_search',
        description:
          'Search the internet for real-time information. Use it for recent events, live data, current news, or to verify facts.',
        parameters: webSearchSchema,
      },
      {
        name: 'fetch_url',
        description:
          'Read one public web page or PDF: its main content as Markdown under a line with title, site and date; links keep their text, their targets listed at the end as `[Ln]: url "text"`. Long pages come as the passages most relevant to `focus` (or the question), with markers where paragraphs were skipped; `part` reads a page in order. Use it when a snippet is not enough: for specifics, numbers, quotes, or a URL the user gave.',
        parameters: fetchUrlSchema,
      },
      {
        name: 'current_context',
        description:
          "Get today's date and the current time (in the bot's time zone) and the names of the current channel and user.",
        parameters: { type: 'object', properties: {} },
      },
    ]);
    // Key order too: it is the text the model reads.
    expect(JSON.stringify(registry.definitions()[0]?.parameters)).toBe(JSON.stringify(webSearchSchema));
  });

  it.each([
    ['web_search', '{}', 'query: Invalid input: expected string, received undefined', webSearchSchema],
    [
      'web_search',
      '{"query":"  "}',
      'query: Too small: expected string to have >=1 characters',
      webSearchSchema,
    ],
    [
      'web_search',
      JSON.stringify({ query: 'x'.repeat(401) }),
      'query: Too big: expected string to have <=400 characters',
      webSearchSchema,
    ],
    ['web_search', '{"query":5}', 'query: Invalid input: expected string, received number', webSearchSchema],
    ['fetch_url', '{"url":""}', 'url: Too small: expected string to have >=1 characters', fetchUrlSchema],
    [
      'fetch_url',
      JSON.stringify({ url: 'x'.repeat(2049) }),
      'url: Too big: expected string to have <=2048 characters',
      fetchUrlSchema,
    ],
    [
      'current_context',
      '[]',
      'arguments: Invalid input: expected object, received array',
      { type: 'object', properties: {} },
    ],
  ])('%s with %s is sent back with what it expects', async (name, args, problem, schema) => {
    const output = await registry.execute(name, args, context());
    expect(output).toEqual({
      isError: true,
      text: `Invalid arguments for ${name}: ${problem}. Call it again with a JSON object matching: ${JSON.stringify(schema)}`,
    });
  });

  it('runs a tool with its arguments trimmed and unknown keys dropped', async () => {
    queries.length = 0;
    const output = await registry.execute('web_search', '{"query":"  weather today ","page":2}', context());
    expect(output.isError).toBeUndefined();
    expect(queries).toEqual(['weather today']);
  });
});
