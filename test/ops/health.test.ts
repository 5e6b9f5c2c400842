/**
 * /healthz and /readyz reflect every registered readiness check — the store (200 with a working
 * one, 503 while it is unreachable, and back to 200, with turns working again, once it returns,
 * without restarting Scout) and each surface's connection; /livez answers 200 throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { buildScout } from '../../src/core/build-scout.js';
import type { Scout } from '../../src/core/scout.js';
import { silentLogger } from '../../src/logger.js';
import { type OpsServer, startOpsServer } from '../../src/ops/http-server.js';
import { createMetrics, type ScoutMetrics } from '../../src/ops/metrics.js';
import { Readiness } from '../../src/ops/readiness.js';
import { storeCheck } from '../../src/ops/store-check.js';
import { SurfaceConnection } from '../../src/ops/surface-connection.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';
import { type FakeOpenAI, startFakeOpenAI, textReply } from '../helpers/fake-openai-server.js';
import { fakeEnv, RecordingSink, testMessage } from '../helpers/scout-harness.js';
import { type ReadOnlySqlite, openReadOnlySqlite } from '../helpers/read-only-sqlite.js';
import { RedisProcess } from './redis-process.js';

/** Store operations give up quickly so the outage turn ends fast. */
const STORE_OP_TIMEOUT_MS = 500;

async function health(url: string, path = '/healthz'): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}${path}`);
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

/** The ops HTTP server on a free loopback port, reporting on `stores` (and whatever else registers). */
function opsServerFor(
  stores: Stores,
  readiness = new Readiness(),
  metrics: ScoutMetrics = createMetrics({ defaultMetrics: false }),
): Promise<OpsServer> {
  readiness.register('store', storeCheck(stores));
  return startOpsServer({ port: 0, host: '127.0.0.1', readiness, metrics, logger: silentLogger });
}

const STORE_OK = { store: { ok: true } };

describe('/healthz', () => {
  it('answers 200 with a working store', async () => {
    const stores = await openStores('memory://');
    const ops = await opsServerFor(stores);
    const res = await fetch(`${ops.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual({ status: 'ok', checks: STORE_OK });
    expect(await health(ops.url, '/readyz')).toEqual({
      status: 200,
      body: { status: 'ok', checks: STORE_OK },
    });
    ops.markDraining();
    expect(await health(ops.url)).toEqual({ status: 503, body: { status: 'draining', checks: STORE_OK } });
    expect(await health(ops.url, '/readyz')).toMatchObject({ status: 503, body: { status: 'draining' } });
    // Draining is not dead: a liveness probe must not have the container killed mid-shutdown.
    expect(await health(ops.url, '/livez')).toEqual({ status: 200, body: { status: 'ok' } });
    await ops.close();
    await stores.close();
  });

  it('answers 503 when the store is unreachable', async () => {
    const stores = await openStores('redis://127.0.0.1:1');
    const ops = await opsServerFor(stores);
    const unreachable = {
      status: 503,
      body: {
        status: 'unhealthy',
        failing: ['store'],
        checks: { store: { ok: false, detail: 'unreachable' } },
      },
    };
    expect(await health(ops.url)).toEqual(unreachable);
    expect(await health(ops.url, '/readyz')).toEqual(unreachable);
    expect(await health(ops.url, '/livez')).toEqual({ status: 200, body: { status: 'ok' } });
    await ops.close();
    await stores.close();
  });

  it('names each failing surface, and counts connections, gaps and reconnects in /metrics', async () => {
    const stores = await openStores('memory://');
    const readiness = new Readiness();
    const metrics = createMetrics({ defaultMetrics: false });
    const slack = new SurfaceConnection('slack', metrics);
    const discord = new SurfaceConnection('discord', metrics);
    readiness.register('slack', slack.check);
    readiness.register('discord', discord.check);
    const ops = await opsServerFor(stores, readiness, metrics);

    // Nothing connected yet (start-up): not ready, and both surfaces say why.
    expect(await health(ops.url)).toEqual({
      status: 503,
      body: {
        status: 'unhealthy',
        failing: ['slack', 'discord'],
        checks: {
          slack: { ok: false, detail: 'not started' },
          discord: { ok: false, detail: 'not started' },
          ...STORE_OK,
        },
      },
    });
    slack.update({ ready: 2, detail: 'Socket Mode, 2 connections' });
    discord.update({ ready: 1, needed: 2, detail: 'gateway shard 1 not ready' });
    expect(await health(ops.url)).toMatchObject({
      status: 503,
      body: { failing: ['discord'], checks: { slack: { ok: true }, discord: { ok: false } } },
    });
    discord.update({ ready: 2, detail: 'gateway connected' });
    expect(await health(ops.url)).toMatchObject({ status: 200, body: { status: 'ok' } });

    // Slack loses every connection: a gap, and not ready until one is back.
    slack.reconnecting();
    slack.update({ ready: 0, detail: 'not connected: connection dropped, reconnecting' });
    expect(await health(ops.url)).toMatchObject({
      status: 503,
      body: {
        failing: ['slack'],
        checks: { slack: { detail: 'not connected: connection dropped, reconnecting' } },
      },
    });
    slack.update({ ready: 1, detail: 'Socket Mode, 1 connection' });
    expect((await health(ops.url)).status).toBe(200);

    const text = await (await fetch(`${ops.url}/metrics`)).text();
    expect(text).toContain('scout_surface_connections{surface="slack"} 1');
    expect(text).toContain('scout_surface_connections{surface="discord"} 2');
    expect(text).toContain('scout_surface_ready{surface="slack"} 1');
    expect(text).toContain('scout_surface_connection_gaps_total{surface="slack"} 1');
    expect(text).toContain('scout_surface_reconnects_total{surface="slack"} 1');
    await ops.close();
    await stores.close();
  });

  it('a check that hangs or throws fails instead of hanging the probe', async () => {
    const readiness = new Readiness(50);
    readiness.register('stuck', () => new Promise(() => {}));
    readiness.register('broken', () => {
      throw new Error('boom');
    });
    readiness.register('fine', () => ({ ok: true }));
    expect(await readiness.evaluate()).toEqual({
      ok: false,
      failing: ['stuck', 'broken'],
      checks: {
        stuck: { ok: false, detail: 'no answer within 50 ms' },
        broken: { ok: false, detail: 'boom' },
        fine: { ok: true },
      },
    });
  });
});

describe('/healthz with a store that answers but cannot be written', async () => {
  const opened = await openReadOnlySqlite();
  it.skipIf('unavailable' in opened)(
    'answers 503 and names the write as the failing part (read-only SQLite)',
    async () => {
      const ro = opened as ReadOnlySqlite;
      const ops = await opsServerFor(ro.stores);
      try {
        expect(await health(ops.url)).toEqual({
          status: 503,
          body: {
            status: 'unhealthy',
            failing: ['store'],
            checks: { store: { ok: false, detail: 'reachable, but a write failed' } },
          },
        });
      } finally {
        await ops.close();
        await ro.close();
      }
    },
  );
});

describe('store outage and recovery (real redis-server)', () => {
  let redis: RedisProcess;
  let llm: FakeOpenAI;
  let stores: Stores;
  let scout: Scout;
  let ops: OpsServer;

  beforeAll(async () => {
    redis = new RedisProcess();
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
    await redis?.close();
  });

  const ask = async (text: string) => {
    const sink = new RecordingSink();
    await scout.handleMessage(testMessage(text, { conversationId: 'test:C1:outage' }), sink);
    return sink;
  };

  it('goes unhealthy while Redis is down, fails turns politely, and recovers without a restart', async () => {
    expect(await health(ops.url)).toEqual({ status: 200, body: { status: 'ok', checks: STORE_OK } });
    expect((await ask('before the outage')).final?.answer).toBe('Still here.');

    await redis.stop();
    await waitForHealth(ops.url, 503);
    expect((await health(ops.url)).body).toMatchObject({ status: 'unhealthy', failing: ['store'] });
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
