/**
 * A web search as a span under `parent` (the turn's span in chat mode, the web_search tool call's in
 * the agent), heard as a step of the turn (src/turn-steps.ts): provider, whether the session
 * cache answered, how many results. The query is message text: on the span only with content
 * capture on.
 */
import { type Context, SpanKind } from '@opentelemetry/api';
import type { StepResult, TurnStep } from '../../turn-steps.js';
import { ScoutError } from '../../errors.js';
import { SCOUT } from './genai.js';
import type { SpanStarter } from './recorded-spans.js';
import { spanned } from './spanned.js';

const errorCode = (err: unknown) => (err instanceof ScoutError ? err.code : 'unknown');

export type SearchTracer = (
  step: TurnStep<'search'>,
  work: () => Promise<StepResult<'search'>>,
  parent: Context,
) => Promise<StepResult<'search'>>;

export function traceSearch(tracer: SpanStarter, capture?: (text: string) => string): SearchTracer {
  return (step, work, parent) =>
    spanned(
      tracer,
      parent,
      `search ${step.provider}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [SCOUT.searchProvider]: step.provider,
          ...(capture ? { [SCOUT.searchQuery]: capture(step.query) } : {}),
        },
        after: (span, outcome) =>
          span.setAttributes({
            [SCOUT.searchCached]: outcome.cached,
            [SCOUT.searchResults]: outcome.results.length,
          }),
        errorType: errorCode,
      },
      work,
    );
}
