/**
 * Wraps an LlmClient so every call is counted: calls, provider-reported tokens and failures by
 * error code. Passed to `buildScout({ wrapLlm })`; the client itself is untouched.
 */
import { LlmError } from '../errors.js';
import type { LlmClient, LlmRequest, StreamPart, Usage } from '../llm/types.js';
import { watchedStream } from '../llm/watched-stream.js';
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

    function stream(request: LlmRequest): AsyncIterable<StreamPart> {
      return watchedStream(
        () => client.stream(request),
        () => {
          metrics.llmCalls.inc({ model });
          // Providers send usage once at the end (Anthropic's is cumulative): keep the latest, count once.
          let usage: Usage | undefined;
          return {
            part: (part) => {
              if (part.type === 'usage') usage = part.usage;
            },
            partTypes: ['usage'],
            error: (err) => {
              countError(err);
              // A failed stream still cost what the provider reported before the failure.
              if (!usage && err instanceof LlmError) usage = err.details.usage;
            },
            end: () => countUsage(usage),
          };
        },
      );
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
