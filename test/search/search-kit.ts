/** Shared set-up for the search tests: one fake search server per file and services pointed at it. */
import Keyv from 'keyv';
import { loadConfig } from '../../src/config/env.js';
import { type Logger, silentLogger } from '../../src/logger.js';
import { createSearchService } from '../../src/search/search-service.js';
import { type FakeSearchServer, startFakeSearchServer } from '../helpers/fake-search-server.js';
import { useSharedFake } from '../helpers/use-shared-fake.js';

/** The file's fake search server, its scripts and request log cleared before each test. */
export function useFakeSearch(): FakeSearchServer {
  return useSharedFake(startFakeSearchServer, (fake) => fake.reset());
}

/** A search service configured from `env` (plus a dummy LLM key), with its own fresh cache. */
export function searchServiceWith(
  env: Record<string, string>,
  options: { logger?: Logger; store?: Keyv } = {},
) {
  const config = loadConfig({ DEEPSEEK_API_KEY: 'sk-test', ...env });
  return createSearchService(
    config,
    { searchCache: options.store ?? new Keyv() },
    options.logger ?? silentLogger,
  );
}
