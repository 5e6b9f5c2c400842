/**
 * A provider's `retry-after` that cannot fit in the turn's remaining time fails at once with the
 * rate-limit message, instead of sleeping past the agent's limit and then saying "took too long".
 */
import { describe, expect, it } from 'vitest';
import { createLlmClient } from '../../src/llm/create-llm-client.js';
import { createAgentExecutor } from '../../src/modes/agent/run-agent.js';
import { openAIErrorBody, textReply } from '../helpers/fake-openai-server.js';
import { makeTurnContext } from './make-turn-context.js';
import { agentLimits, useModeFakes } from './mode-fakes.js';

const fakes = useModeFakes();

/**
 * A client that retries like production (3 retries, honouring retry-after); `waits` (when given)
 * records each backoff instead of sleeping it.
 */
const retryingClient = (waits?: number[]) =>
  createLlmClient(
    { provider: 'openai', model: 'tool-model', temperature: 0, maxTokens: 500 },
    {
      endpoints: { openai: { apiKey: 'sk-test', baseUrl: fakes.llm.baseUrl } },
      maxRetries: 3,
      retryBaseMs: 1,
      timeoutMs: 5_000,
      ...(waits
        ? {
            sleep: async (ms: number) => {
              waits.push(ms);
            },
          }
        : {}),
    },
  );

const rateLimited = (seconds: number) => ({
  status: 429,
  body: openAIErrorBody('Rate limit reached', 'rate_limit_exceeded'),
  headers: { 'retry-after': String(seconds) },
});

describe('retry-after against the turn budget', () => {
  it('agent: retry-after 30 s with a 10 s limit fails at once with the rate-limit message', async () => {
    fakes.llm.enqueue(rateLimited(30));
    // "At once": no backoff was waited at all (recorded, not timed).
    const waits: number[] = [];
    const llm = retryingClient(waits);
    const turn = makeTurnContext({ text: 'hello', llm: { tool: llm }, env: fakes.env });
    await createAgentExecutor({ function_call_llm: llm, ...agentLimits({ maxExecutionMs: 10_000 }) }).run(
      turn.ctx,
    );
    expect(waits).toEqual([]);
    expect(turn.view.error).toMatch(/rate-limiting/);
    expect(turn.view.error).not.toMatch(/too long/);
    expect(fakes.llm.requests).toHaveLength(1);
  });

  it('a short retry-after that fits is still waited out, and the answer arrives', async () => {
    fakes.llm.enqueue(rateLimited(1), textReply('Hello after the wait.'));
    fakes.llm.fallback = textReply('Hello after the wait.');
    const llm = retryingClient();
    const turn = makeTurnContext({ text: 'hello', llm: { tool: llm }, env: fakes.env });
    const result = await createAgentExecutor({
      function_call_llm: llm,
      ...agentLimits({ maxExecutionMs: 10_000 }),
    }).run(turn.ctx);
    expect(result.answer).toContain('Hello after the wait.');
    expect(fakes.llm.requests.length).toBeGreaterThanOrEqual(2);
  });
});
