/**
 * A whole Scout core wired to loopback fakes: a scripted OpenAI-compatible LLM server, a fake search
 * API (Tavily by default) and an in-memory store. Surfaces' end-to-end tests build on it.
 *
 * ```ts
 * const h = await startTestScout({ env: { DEFAULT_MODE: 'agent' } });
 * h.llm.enqueue(textReply('Hello'));
 * await h.scout.handleMessage(message, sink);
 * await h.close();
 * ```
 */
import { type Config, loadConfig } from '../../src/config/env.js';
import { buildScout } from '../../src/core/build-scout.js';
import type { Scout } from '../../src/core/scout.js';
import { type Logger, silentLogger } from '../../src/logger.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';
import type { UserText } from '../../src/i18n/phrase.js';
import { say } from '../../src/i18n/say.js';
import type { IncomingMessage, Locale, TurnSink } from '../../src/surface.js';
import type { TurnView } from '../../src/render/view.js';
import { type FakeOpenAI, startFakeOpenAI } from './fake-openai-server.js';
import { type FakeSearchServer, startFakeSearchServer } from './fake-search-server.js';

export const TEST_LLM_KEY = 'sk-test-harness-key';

export interface TestScout {
  scout: Scout;
  config: Config;
  stores: Stores;
  llm: FakeOpenAI;
  search: FakeSearchServer;
  close(): Promise<void>;
}

export interface TestScoutOptions {
  /** Extra environment (wins over the harness defaults). */
  env?: Record<string, string>;
  /** An open store to share (two instances, restarts); default a fresh memory store. */
  stores?: Stores;
  /** Reuse running fakes (two instances talking to the same fakes). */
  llm?: FakeOpenAI;
  search?: FakeSearchServer;
  logger?: Logger;
  /** No search provider configured. */
  noSearch?: boolean;
}

/** The environment that points every external service at the fakes. */
export function fakeEnv(llm: FakeOpenAI, search: FakeSearchServer | undefined): Record<string, string> {
  return {
    OPENAI_API_KEY: TEST_LLM_KEY,
    OPENAI_BASE_URL: llm.baseUrl,
    AGENT_FUNCTION_CALL_MODEL: 'openai/test-model',
    LLM_RETRY_BASE_MS: '5',
    LLM_TIMEOUT_MS: '5000',
    STORE_URL: 'memory://',
    LOG_LEVEL: 'silent',
    ...(search ? search.env('tavily') : { SEARCH_PROVIDER: 'none' }),
  };
}

export async function startTestScout(options: TestScoutOptions = {}): Promise<TestScout> {
  const llm = options.llm ?? (await startFakeOpenAI());
  const search = options.search ?? (await startFakeSearchServer());
  const config = loadConfig({ ...fakeEnv(llm, options.noSearch ? undefined : search), ...options.env });
  const logger = options.logger ?? silentLogger;
  const stores =
    options.stores ??
    (await createStores({ url: config.env.STORE_URL, sessionTtlMs: config.env.SESSION_TTL, logger }));
  const scout = await buildScout({ config, logger, stores });
  return {
    scout,
    config,
    stores,
    llm,
    search,
    async close() {
      await scout.shutdown(1_000);
      if (!options.stores) await stores.close();
      if (!options.llm) await llm.close();
      if (!options.search) await search.close();
    },
  };
}

let messageCounter = 0;

/** A user message for tests; ids are unique unless given. */
export function testMessage(text: string, overrides: Partial<IncomingMessage> = {}): IncomingMessage {
  messageCounter += 1;
  return {
    channelId: 'test:C1',
    conversationId: 'test:C1:T1',
    messageId: `test:m${messageCounter}:${Date.now()}`,
    userId: 'U1',
    userName: 'tester',
    text,
    ...overrides,
  };
}

/** A sink that records every view snapshot, replies and the final view. */
export class RecordingSink implements TurnSink {
  readonly updates: TurnView[] = [];
  /** Replies as the asker reads them, said in the sink's locale as a surface's sink says them. */
  readonly replies: string[] = [];
  final: TurnView | undefined;

  constructor(private readonly locale: Locale = 'en') {}

  update(view: TurnView): void {
    this.updates.push(structuredClone(view));
  }

  async done(view: TurnView): Promise<void> {
    this.final = structuredClone(view);
  }

  async reply(text: UserText): Promise<void> {
    this.replies.push(say(this.locale, text));
  }
}
