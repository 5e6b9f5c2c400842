/**
 * The search span, as a turn's search service is wrapped: a search that answers gets its result
 * count and cache flag, one that fails is marked an error with the error's code, never its message
 * (a provider's error text may quote the query), and the failure still reaches the caller.
 */
import { ROOT_CONTEXT, SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { SearchError } from '../../src/errors.js';
import { traceSearch } from '../../src/ops/tracing/trace-search.js';
import type { SearchService } from '../../src/search/types.js';

function traced(search: SearchService['search']) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const service: SearchService = {
    available: true,
    providerName: 'tavily',
    search,
    clearSession: async () => {},
  };
  return { exporter, service: traceSearch(provider.getTracer('test'))(service, ROOT_CONTEXT) };
}

describe('traceSearch', () => {
  it('records the results and the cache flag of a search that answered', async () => {
    const { exporter, service } = traced(async () => ({
      results: [{ title: 't', url: 'https://example.com/', snippet: 's' }],
      cached: true,
    }));
    await service.search('secret question', { sessionKey: 'k' });
    const [span] = exporter.getFinishedSpans();
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
    const { exporter, service } = traced(async () => {
      throw failure;
    });
    await expect(service.search('secret question', { sessionKey: 'k' })).rejects.toBe(failure);
    const [span] = exporter.getFinishedSpans();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('search');
    expect(JSON.stringify(span?.attributes)).not.toContain('secret');
  });
});
