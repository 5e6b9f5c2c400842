/**
 * Wraps an LlmClient so every call is counted: calls, provider-reported tokens and failures by
 * error code. Passed to `buildScout({ wrapLlm })`; the client itself is untouched.
 */
import { LlmError } from '../errors.js';
import type { LlmClient, LlmRequest, StreamPart, Usage } from '../llm/types.js';
import type { ScoutMetrics } from './metrics.js';

export function instrumentLlm(metrics: ScoutMetrics): (client: LlmClient) => LlmClient {
  return (client) => {
    const model = client.label;
    const countUsage = (usage: Usage | undefined) => {
      if (!usage) return;
      metrics.llmTokens.inc({ model, type: 'input' }, usage.inputTokens);
      metrics.llmTokens.inc({ model, type: 'output' }, usage.outputTokens);
      metrics.llmTokens.inc({ model, type: 'reasoning' }, usage.reasoningTokens);
    };
    const countError = (err: unknown) => {
      metrics.llmErrors.inc({ model, code: err instanceof LlmError ? err.code : 'unknown' });
    };

    /**
     * The client's stream, watched: a plain iterator over the client's, not another async generator
     * (one more generator layer for every streamed token of every answer was measurable).
     */
    function stream(request: LlmRequest): AsyncIterable<StreamPart> {
      return {
        [Symbol.asyncIterator]() {
          metrics.llmCalls.inc({ model });
          const parts = client.stream(request)[Symbol.asyncIterator]();
          // Providers send usage once at the end (Anthropic's is cumulative): keep the latest, count once.
          let usage: Usage | undefined;
          let counted = false;
          const end = () => {
            if (counted) return;
            counted = true;
            countUsage(usage);
          };
          return {
            next: () =>
              parts.next().then(
                (result) => {
                  if (result.done) end();
                  else if (result.value.type === 'usage') usage = result.value.usage;
                  return result;
                },
                (err: unknown) => {
                  countError(err);
                  // A failed stream still cost what the provider reported before the failure.
                  if (!usage && err instanceof LlmError) usage = err.details.usage;
                  end();
                  throw err;
                },
              ),
            // The consumer stopped early: end the client's stream (its connection) and count.
            return: async (value?: unknown) => {
              try {
                await parts.return?.(value);
              } finally {
                end();
              }
              return { done: true as const, value: value as StreamPart };
            },
          };
        },
      };
    }

    return {
      config: client.config,
      label: client.label,
      stream,
      async complete(request) {
        metrics.llmCalls.inc({ model });
        try {
          const response = await client.complete(request);
          countUsage(response.usage);
          return response;
        } catch (err) {
          countError(err);
          if (err instanceof LlmError) countUsage(err.details.usage);
          throw err;
        }
      },
    };
  };
}
