/** Shared set-up for the LLM tests: real SDK clients pointed at the loopback fakes, fast retries. */
import { createLlmClient, type LlmClientOptions } from '../../src/llm/create-llm-client.js';
import type { LlmClient, ModelConfig, ProviderName, StreamPart } from '../../src/llm/types.js';
import type { ScriptedServer } from '../helpers/scripted-sse-server.js';
import { useSharedFake } from '../helpers/use-shared-fake.js';

export const TEST_KEY = 'sk-test-0123456789abcdef';

export function model(provider: ProviderName, name: string, extra: Partial<ModelConfig> = {}): ModelConfig {
  return { provider, model: name, temperature: 0.7, maxTokens: 256, ...extra };
}

/** A client for `provider` whose base URL is the fake's, with 5 ms backoff. */
export function clientFor(
  provider: ProviderName,
  name: string,
  baseUrl: string,
  options: LlmClientOptions = {},
  extra: Partial<ModelConfig> = {},
): LlmClient {
  return createLlmClient(model(provider, name, extra), {
    endpoints: { [provider]: { apiKey: TEST_KEY, baseUrl } },
    retryBaseMs: 5,
    timeoutMs: 2_000,
    ...options,
  });
}

export async function collectParts(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** Awaits a promise that must reject, returning the error. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

/** One fake LLM server for the calling `describe` block, its request log and fallback cleared before each test. */
export function useFakeServer<F extends ScriptedServer>(start: () => Promise<F>): F {
  return useSharedFake(start, (fake) => {
    fake.requests.length = 0;
    fake.fallback = undefined;
  });
}
