/**
 * /metrics after scripted turns through the real core: the real openai SDK against the fake LLM
 * server, the real Tavily provider against the fake search server, scraped over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { buildScout } from '../../src/core/build-scout.js';
import type { Scout } from '../../src/core/scout.js';
import { silentLogger } from '../../src/logger.js';
import { type OpsServer, startOpsServer } from '../../src/ops/http-server.js';
import { instrumentation } from '../../src/ops/instrumentation.js';
import { createMetrics, EVENT_LOOP_SAMPLE_MS, type ScoutMetrics } from '../../src/ops/metrics.js';
import { Readiness } from '../../src/ops/readiness.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';
import {
  type FakeOpenAI,
  openAIErrorBody,
  startFakeOpenAI,
  textReply,
} from '../helpers/fake-openai-server.js';
import { type FakeSearchServer, startFakeSearchServer } from '../helpers/fake-search-server.js';
import { fakeEnv, RecordingSink, testMessage } from '../helpers/scout-harness.js';
import { sample, scrape } from './metrics-text.js';

const MODEL = 'openai/test-model';

describe('/metrics after real turns', () => {
  let llm: FakeOpenAI;
  let search: FakeSearchServer;
  let stores: Stores;
  let scout: Scout;
  let metrics: ScoutMetrics;
  let ops: OpsServer;

  beforeAll(async () => {
    llm = await startFakeOpenAI();
    search = await startFakeSearchServer();
    const config = loadConfig({ ...fakeEnv(llm, search), LLM_MAX_RETRIES: '0' });
    stores = await createStores({
      url: 'memory://',
      sessionTtlMs: config.env.SESSION_TTL,
      logger: silentLogger,
    });
    metrics = createMetrics();
    scout = await buildScout({ config, logger: silentLogger, stores, ...instrumentation(metrics) });
    ops = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      readiness: new Readiness(),
      metrics,
      logger: silentLogger,
    });
  });

  afterAll(async () => {
    await scout.shutdown(1_000);
    await ops.close();
    await stores.close();
    await llm.close();
    await search.close();
  });

  it('counts turns, latency, model calls, tokens, searches, cache hits and errors', async () => {
    const channelId = 'test:metrics';
    await scout.runCommand('search', 'on', { channelId, userId: 'U1' });

    // Turn 1: chat with search on → one search request, one model call.
    llm.enqueue(
      textReply('Rust async runs on executors [1].', {
        usage: { inputTokens: 120, outputTokens: 30, reasoningTokens: 7 },
      }),
    );
    const first = new RecordingSink();
    await scout.handleMessage(
      testMessage('rust async', { channelId, conversationId: `${channelId}:1` }),
      first,
    );
    expect(first.final?.answer).toContain('Rust async');

    // Turn 2: the same question in the same channel session → served from the cache.
    llm.enqueue(textReply('Again.', { usage: { inputTokens: 80, outputTokens: 20 } }));
    await scout.handleMessage(
      testMessage('rust async', { channelId, conversationId: `${channelId}:2` }),
      new RecordingSink(),
    );
    expect(search.requests).toHaveLength(1);

    // Turn 3: the provider rejects the key → an auth error, the turn fails with a friendly message.
    llm.enqueue({
      status: 401,
      body: openAIErrorBody('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key'),
    });
    const failed = new RecordingSink();
    await scout.handleMessage(
      testMessage('rust async', { channelId, conversationId: `${channelId}:3` }),
      failed,
    );
    expect(failed.final?.error).toBeTruthy();

    const text = await scrape(ops.url);
    expect(sample(text, 'scout_turns_total', { mode: 'chat', outcome: 'ok' })).toBe(2);
    expect(sample(text, 'scout_turns_total', { mode: 'chat', outcome: 'error' })).toBe(1);
    expect(sample(text, 'scout_turn_duration_seconds_count', { mode: 'chat' })).toBe(3);
    expect(sample(text, 'scout_turn_duration_seconds_sum', { mode: 'chat' })).toBeGreaterThan(0);
    expect(sample(text, 'scout_llm_calls_total', { model: MODEL })).toBe(3);
    expect(sample(text, 'scout_llm_tokens_total', { model: MODEL, type: 'input' })).toBe(200);
    expect(sample(text, 'scout_llm_tokens_total', { model: MODEL, type: 'output' })).toBe(50);
    expect(sample(text, 'scout_llm_tokens_total', { model: MODEL, type: 'reasoning' })).toBe(7);
    expect(sample(text, 'scout_llm_errors_total', { model: MODEL, code: 'auth' })).toBe(1);
    expect(sample(text, 'scout_errors_total', { kind: 'llm' })).toBe(1);
    expect(sample(text, 'scout_search_calls_total', { provider: 'tavily', outcome: 'ok' })).toBe(3);
    expect(sample(text, 'scout_search_cache_hits_total', { provider: 'tavily' })).toBe(2);
    // Default process metrics are there too.
    expect(sample(text, 'scout_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts search failures and edits reported by adapters', async () => {
    const channelId = 'test:metrics-fail';
    await scout.runCommand('search', 'on', { channelId, userId: 'U1' });
    search.failWith = { status: 500 };
    llm.enqueue(textReply('From memory.'));
    await scout.handleMessage(
      testMessage('outage', { channelId, conversationId: `${channelId}:1` }),
      new RecordingSink(),
    );
    search.failWith = null;
    metrics.recordEdit('slack');
    metrics.recordEdit('slack');
    metrics.recordEdit('discord');

    const text = await scrape(ops.url);
    expect(sample(text, 'scout_search_calls_total', { provider: 'tavily', outcome: 'error' })).toBe(1);
    expect(sample(text, 'scout_edits_sent_total', { surface: 'slack' })).toBe(2);
    expect(sample(text, 'scout_edits_sent_total', { surface: 'discord' })).toBe(1);
  });

  it('shows a stalled event loop in the lag series', async () => {
    const fresh = createMetrics();
    const pause = () => new Promise((resolve) => setTimeout(resolve, EVENT_LOOP_SAMPLE_MS * 1.5));
    await pause();
    // A 400 ms stall, as a synchronous parse of a hostile page would make.
    const until = performance.now() + 400;
    while (performance.now() < until) {}
    await pause();
    const text = await fresh.render();
    expect(sample(text, 'scout_nodejs_eventloop_lag_max_seconds')).toBeGreaterThan(0.25);
  });

  it('keeps registries apart and answers unknown paths with 404', async () => {
    const other = createMetrics({ defaultMetrics: false });
    other.recordTurn('agent', 'ok', 1500);
    const text = await other.render();
    expect(sample(text, 'scout_turns_total', { mode: 'agent', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'scout_turn_duration_seconds_bucket', { mode: 'agent', le: '2' })).toBe(1);
    expect(sample(text, 'scout_turn_duration_seconds_bucket', { mode: 'agent', le: '1' })).toBe(0);
    expect(sample(await scrape(ops.url), 'scout_turns_total', { mode: 'agent' })).toBeUndefined();
    expect((await fetch(`${ops.url}/nope`)).status).toBe(404);
    expect((await fetch(`${ops.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });
});
