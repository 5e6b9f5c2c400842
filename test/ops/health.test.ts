/**
 * /healthz reflects the store: 200 with a working one, 503 while it is unreachable, and back to
 * 200 — with turns working again — once it returns, without restarting Scout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { buildScout } from '../../src/core/build-scout.js';
import type { Scout } from '../../src/core/scout.js';
import { silentLogger } from '../../src/logger.js';
import { type OpsServer, startOpsServer } from '../../src/ops/http-server.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';
import { type FakeOpenAI, startFakeOpenAI, textReply } from '../helpers/fake-openai-server.js';
import { fakeEnv, RecordingSink, testMessage } from '../helpers/scout-harness.js';
import { freePort, RedisProcess } from './redis-process.js';

/** Store operations give up quickly so the outage turn ends fast. */
const STORE_OP_TIMEOUT_MS = 500;

async function health(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/healthz`);
  return { status: res.status, body: await res.json() };
}

async function waitForHealth(url: string, status: number, withinMs = 8_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while ((await health(url)).status !== status) {
    if (Date.now() > deadline) throw new Error(`/healthz never answered ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function openStores(url: string): Promise<Stores> {
  return createStores({
    url,
    sessionTtlMs: 60_000,
    logger: silentLogger,
    namespacePrefix: `scout-ops-test-${process.pid}-${Date.now()}`,
    operationTimeoutMs: STORE_OP_TIMEOUT_MS,
  });
}

/** The ops HTTP server on a free loopback port, reporting on `stores`. */
function opsServerFor(stores: Stores): Promise<OpsServer> {
  return startOpsServer({
    port: 0,
    host: '127.0.0.1',
    stores,
    metrics: createMetrics(),
    logger: silentLogger,
  });
}

describe('/healthz', () => {
  it('answers 200 with a working store', async () => {
    const stores = await openStores('memory://');
    const ops = await opsServerFor(stores);
    const res = await fetch(`${ops.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual({ status: 'ok', store: 'ok' });
    ops.markDraining();
    expect(await health(ops.url)).toEqual({ status: 503, body: { status: 'draining', store: 'ok' } });
    await ops.close();
    await stores.close();
  });

  it('answers 503 when the store is unreachable', async () => {
    const stores = await openStores('redis://127.0.0.1:1');
    const ops = await opsServerFor(stores);
    expect(await health(ops.url)).toEqual({
      status: 503,
      body: { status: 'unhealthy', store: 'unreachable' },
    });
    await ops.close();
    await stores.close();
  });
});

describe('store outage and recovery (real redis-server)', () => {
  let redis: RedisProcess;
  let llm: FakeOpenAI;
  let stores: Stores;
  let scout: Scout;
  let ops: OpsServer;

  beforeAll(async () => {
    redis = new RedisProcess(await freePort());
    await redis.start();
    llm = await startFakeOpenAI();
    llm.fallback = textReply('Still here.');
    const config = loadConfig({ ...fakeEnv(llm, undefined), STORE_URL: redis.url });
    stores = await openStores(redis.url);
    scout = await buildScout({ config, logger: silentLogger, stores });
    ops = await opsServerFor(stores);
  });

  afterAll(async () => {
    await scout?.shutdown(1_000);
    await ops?.close();
    await stores?.close();
    await llm?.close();
    await redis?.stop();
  });

  const ask = async (text: string) => {
    const sink = new RecordingSink();
    await scout.handleMessage(testMessage(text, { conversationId: 'test:C1:outage' }), sink);
    return sink;
  };

  it('goes unhealthy while Redis is down, fails turns politely, and recovers without a restart', async () => {
    expect(await health(ops.url)).toEqual({ status: 200, body: { status: 'ok', store: 'ok' } });
    expect((await ask('before the outage')).final?.answer).toBe('Still here.');

    await redis.stop();
    await waitForHealth(ops.url, 503);
    expect((await health(ops.url)).body).toEqual({ status: 'unhealthy', store: 'unreachable' });
    const during = await ask('during the outage');
    // A friendly message, no answer, no crash.
    const shown = [during.final?.error ?? '', ...during.replies].join(' ');
    expect(during.final?.answer ?? '').toBe('');
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).not.toMatch(/ECONNREFUSED|stack|at \w+ \(/);

    await redis.start();
    await waitForHealth(ops.url, 200);
    expect((await ask('after the outage')).final?.answer).toBe('Still here.');
  });
});
