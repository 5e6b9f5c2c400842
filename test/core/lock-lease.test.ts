/**
 * A conversation whose turn holder died is free again within seconds (short, renewed leases), and
 * the message waiting for it says so instead of waiting in silence.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Config, loadConfig } from '../../src/config/env.js';
import { Scout } from '../../src/core/scout.js';
import type { LlmClient } from '../../src/llm/types.js';
import { silentLogger } from '../../src/logger.js';
import type { ModeRunner } from '../../src/modes/types.js';
import { createPromptLibrary } from '../../src/prompts/prompt-library.js';
import { createSearchService } from '../../src/search/search-service.js';
import { createStores } from '../../src/store/create-stores.js';
import type { QueuedLockService } from '../../src/store/lock-service.js';
import type { Stores } from '../../src/store/types.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { RecordingSink, testMessage } from '../helpers/scout-harness.js';
import { randomPrefix } from '../store/store-suite.js';

const redisUrl = process.env.REDIS_URL;
const config: Config = loadConfig({
  OPENAI_API_KEY: 'sk-test-lease',
  AGENT_FUNCTION_CALL_MODEL: 'openai/test-model',
  SEARCH_PROVIDER: 'none',
  STORE_URL: 'memory://',
  LOG_LEVEL: 'silent',
});

const opened: Stores[] = [];
const scouts: Scout[] = [];
afterEach(async () => {
  for (const scout of scouts.splice(0)) await scout.shutdown(0);
  for (const stores of opened.splice(0)) await stores.close();
});

async function instance(url: string, mode: ModeRunner, namespacePrefix?: string) {
  const stores = await createStores({
    url,
    sessionTtlMs: 60_000,
    logger: silentLogger,
    ...(namespacePrefix ? { namespacePrefix } : {}),
  });
  opened.push(stores);
  const scout = new Scout({
    config,
    logger: silentLogger,
    stores,
    search: createSearchService(config, stores, silentLogger),
    tools: createToolRegistry([], { logger: silentLogger }),
    prompts: createPromptLibrary(),
    llm: (model) => ({ label: model.model, config: model }) as unknown as LlmClient,
    modes: { chat: mode, agent: mode, plan: mode },
  });
  scouts.push(scout);
  return { stores, scout };
}

/** Runs until the turn is cancelled; `started` resolves when it began. */
function blockingMode(): { mode: ModeRunner; started: Promise<void> } {
  let began!: () => void;
  const started = new Promise<void>((resolve) => {
    began = resolve;
  });
  const mode: ModeRunner = (ctx) => {
    began();
    return new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
    });
  };
  return { mode, started };
}

const answering: ModeRunner = async (ctx) => {
  ctx.emit({ type: 'text-delta', text: `answer to ${ctx.message.text}` });
  return { answer: `answer to ${ctx.message.text}` };
};

const waitingShown = (sink: RecordingSink) =>
  sink.updates.some((view) => /Waiting for the previous answer/.test(view.status ?? ''));

describe('conversation locks', () => {
  it('a message queued behind a running answer sees "waiting for the previous answer…"', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { scout } = await instance('memory://', async (ctx) => {
      if (ctx.message.text === 'first') await gate;
      return answering(ctx);
    });
    const first = scout.handleMessage(
      testMessage('first', { conversationId: 'test:C1:W' }),
      new RecordingSink(),
    );
    const sink = new RecordingSink();
    const second = scout.handleMessage(testMessage('second', { conversationId: 'test:C1:W' }), sink);
    // Shown while the first answer holds the conversation (it is held until the notice came): waited
    // for as an event, not checked after 900 ms.
    try {
      await vi.waitFor(() => expect(waitingShown(sink)).toBe(true), { timeout: 15_000 });
    } finally {
      release();
    }
    await Promise.all([first, second]);
    expect(sink.final?.answer).toBe('answer to second');
    expect(sink.final?.status).toBeNull();
  });

  it.skipIf(!redisUrl)(
    'Redis: a holder that died mid-turn frees its conversation within a few seconds',
    async () => {
      const namespacePrefix = randomPrefix();
      const blocked = blockingMode();
      const a = await instance(redisUrl!, blocked.mode, namespacePrefix);
      const b = await instance(redisUrl!, answering, namespacePrefix);
      void a.scout.handleMessage(testMessage('first', { conversationId: 'test:C1:D' }), new RecordingSink());
      await blocked.started;
      // What kill -9 leaves behind: the lease stays in Redis and nobody renews it.
      (a.stores.locks as QueuedLockService).stop();
      const started = Date.now();
      const sink = new RecordingSink();
      await b.scout.handleMessage(testMessage('second', { conversationId: 'test:C1:D' }), sink);
      const waited = Date.now() - started;
      expect(sink.final?.answer).toBe('answer to second');
      expect(waitingShown(sink)).toBe(true);
      // The lease is 5 s; the old one (30 s) kept the conversation blocked ~26 s. Halfway between:
      // the lease's own timer (never early) separates the two however busy the machine.
      expect(waited).toBeLessThan(15_000);
      await b.stores.meta.clear();
    },
    40_000,
  );
});
