/**
 * The search span, as a traced turn hears a search (chat mode's and web_search's way): a search that answers gets its result
 * count and cache flag, one that fails is marked an error with the error's code, never its message
 * (a provider's error text may quote the query), and the failure still reaches the caller.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { SearchError } from '../../src/errors.js';
import { heard } from '../../src/turn-steps.js';
import type { SearchOutcome } from '../../src/search/types.js';
import { inTracedTurn, memoryTracer } from '../helpers/traced-turn.js';

/** One search heard in a traced turn, as chat mode and the web_search tool make it. */
function traced(search: (query: string) => Promise<SearchOutcome>) {
  const { tracer, spans: all } = memoryTracer();
  const spans = () => all().filter((s) => s.name.startsWith('search'));
  const run = (query: string) => {
    let result: Promise<SearchOutcome> | undefined;
    const turn = inTracedTurn(tracer, async (_meter, scope) => {
      result = heard(scope.hearStep, { kind: 'search', provider: 'tavily', query }, () => search(query));
      await result.catch(() => undefined);
    });
    return turn.then(() => result!);
  };
  return { spans, run };
}

describe('traceSearch', () => {
  it('records the results and the cache flag of a search that answered', async () => {
    const { spans, run } = traced(async () => ({
      results: [{ title: 't', url: 'https://example.com/', snippet: 's' }],
      cached: true,
    }));
    await run('secret question');
    const [span] = spans();
    expect(span?.name).toBe('search tavily');
    expect(span?.attributes).toEqual({
      'scout.search.provider': 'tavily',
      'scout.search.cached': true,
      'scout.search.results': 1,
    });
    expect(span?.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('marks a failed search with its error code, not its message, and rethrows', async () => {
    const failure = new SearchError('Tavily said no to "secret question"', 'tavily', 500);
    const { spans, run } = traced(async () => {
      throw failure;
    });
    await expect(run('secret question')).rejects.toBe(failure);
    const [span] = spans();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('search');
    expect(JSON.stringify(span?.attributes)).not.toContain('secret');
  });
});
