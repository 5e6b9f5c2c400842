/**
 * The loopback fakes mode tests share: a scripted OpenAI-compatible LLM server and a fake Tavily,
 * with real LLM clients pointed at them (no retries, so call counts are exact).
 */
import { afterEach, beforeEach } from 'vitest';
import { createLlmClient } from '../../src/llm/create-llm-client.js';
import type { LlmClient, ProviderName } from '../../src/llm/types.js';
import type { AgentExecutorOptions } from '../../src/modes/agent/run-agent.js';
import { type FakeOpenAI, startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { type FakeSearchServer, startFakeSearchServer } from '../helpers/fake-search-server.js';
import { readThrough } from '../helpers/use-shared-fake.js';

export interface ModeFakes {
  llm: FakeOpenAI;
  search: FakeSearchServer;
  /** A real client for `model` on the fake LLM server (max_tokens 500 unless given). */
  client(model: string, provider?: ProviderName, maxTokens?: number): LlmClient;
  /** Environment selecting the fake Tavily. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startModeFakes(): Promise<ModeFakes> {
  const llm = await startFakeOpenAI();
  const search = await startFakeSearchServer();
  return {
    llm,
    search,
    client(model, provider = 'openai', maxTokens = 500) {
      return createLlmClient(
        { provider, model, temperature: 0, maxTokens },
        {
          endpoints: { [provider]: { apiKey: 'sk-test', baseUrl: llm.baseUrl } },
          maxRetries: 0,
          retryBaseMs: 1,
          timeoutMs: 5_000,
        },
      );
    },
    env: search.env('tavily'),
    async close() {
      await Promise.all([llm.close(), search.close()]);
    },
  };
}

/** The model each recorded LLM request asked for, in order. */
export function requestedModels(fakes: ModeFakes): string[] {
  return fakes.llm.requests.map((r) => String(r.body?.model));
}

/**
 * Fresh fakes for every test of the calling file (started in `beforeEach`, closed in `afterEach`).
 * The returned object always reads through to the current test's fakes.
 */
export function useModeFakes(): ModeFakes {
  let current: ModeFakes | undefined;
  beforeEach(async () => {
    current = await startModeFakes();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return readThrough(() => current);
}

/**
 * Agent limits for tests; each test overrides what it is about. `minResultChars` is so high by
 * default that the result length alone never counts as enough.
 */
export function agentLimits(
  overrides: Partial<AgentExecutorOptions> = {},
): Omit<AgentExecutorOptions, 'function_call_llm'> {
  return {
    maxIterations: 5,
    maxExecutionMs: 10_000,
    minResultChars: 100_000,
    maxToolCalls: 10,
    ...overrides,
  };
}
