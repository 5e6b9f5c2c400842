import net from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';
import { createStores } from '../../src/store/create-stores.js';
import { LockTimeoutError } from '../../src/store/lock-service.js';
import type { Stores } from '../../src/store/types.js';
import { randomPrefix, sleep } from './store-suite.js';

const redisUrl = process.env.REDIS_URL;
/** Short operation bound so the outage tests stay fast. */
const OP_TIMEOUT_MS = 1_000;

/** Records unhandled failures: a store outage must never produce one. */
function trackUnhandled() {
  const seen: unknown[] = [];
  const record = (err: unknown) => seen.push(err);
  beforeEach(() => {
    seen.length = 0;
    process.on('unhandledRejection', record);
    process.on('uncaughtException', record);
  });
  afterEach(() => {
    process.off('unhandledRejection', record);
    process.off('uncaughtException', record);
  });
  return seen;
}

describe.skipIf(!redisUrl)('two instances on one Redis', () => {
  const namespacePrefix = randomPrefix();
  let a: Stores;
  let b: Stores;
  beforeAll(async () => {
    const open = () =>
      createStores({ url: redisUrl!, sessionTtlMs: 60_000, logger: silentLogger, namespacePrefix });
    [a, b] = await Promise.all([open(), open()]);
    expect(await a.ping()).toBe(true);
  });
  afterAll(async () => {
    await a.meta.clear();
    await Promise.all([a.close(), b.close()]);
  });

  it('never lets both hold the same lock', async () => {
    const held = await a.locks.acquire('conv-shared', { ttlMs: 2_000 });
    await expect(b.locks.acquire('conv-shared', { waitMs: 150 })).rejects.toBeInstanceOf(LockTimeoutError);
    const bWaiting = b.locks.acquire('conv-shared', { waitMs: 3_000 });
    await sleep(50);
    await held.release();
    await (await bWaiting).release();

    let inside = 0;
    let maxInside = 0;
    let runs = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const lease = await (i % 2 ? a : b).locks.acquire('conv-race', { ttlMs: 2_000, waitMs: 5_000 });
        inside++;
        maxInside = Math.max(maxInside, inside);
        await sleep(5);
        inside--;
        runs++;
        await lease.release();
      }),
    );
    expect(runs).toBe(8);
    expect(maxInside).toBe(1);
  });

  it('shares state: what one instance writes, the other reads', async () => {
    await a.meta.set('answered:thread-1', true, 5_000);
    expect(await b.meta.get('answered:thread-1')).toBe(true);
  });

  it('dedupes across instances: exactly one true out of many concurrent calls', async () => {
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).dedupe.firstSeen('slack-event-Ev123', 10_000)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

describe('unreachable Redis', () => {
  const unhandled = trackUnhandled();

  it('starts, then every operation rejects with StoreError within the bound', async () => {
    const stores = await createStores({
      url: 'redis://127.0.0.1:1',
      sessionTtlMs: 60_000,
      logger: silentLogger,
      operationTimeoutMs: OP_TIMEOUT_MS,
    });
    const checks: Array<[string, () => Promise<unknown>]> = [
      ['get', () => stores.settings.get('c')],
      ['set', () => stores.conversations.set('c', { messages: [] })],
      ['delete', () => stores.meta.delete('c')],
      ['has', () => stores.meta.has('c')],
      ['lock', () => stores.locks.acquire('c', { waitMs: 500 })],
      ['dedupe', () => stores.dedupe.firstSeen('e', 1_000)],
    ];
    for (const [name, op] of checks) await expectBounded(op(), name, OP_TIMEOUT_MS);
    expect(await stores.ping()).toBe(false);
    await stores.close();
    await sleep(50);
    expect(unhandled).toEqual([]);
  });
});

/**
 * A TCP relay to the real Redis that the test can cut and restore, standing in for an outage. It keeps
 * its port the whole time (cut, it drops every connection at once), so no other process can take the
 * port between the outage and the return.
 */
async function startRelay(target: URL) {
  const sockets = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    /** Drops every connection, and each new one, until `restore`. */
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * `op` rejects with a StoreError; one that ran into its bound says so, and names this bound (the
 * operation's own timer, not a default): "within the bound" without timing it.
 */
async function expectBounded(op: Promise<unknown>, name: string, boundMs: number): Promise<void> {
  const err = await op.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, name).toBeInstanceOf(StoreError);
  const timedOut = /timed out after (\d+) ms/.exec((err as Error).message);
  if (timedOut) expect(Number(timedOut[1]), name).toBeLessThanOrEqual(boundMs);
}

describe.skipIf(!redisUrl)('Redis outage and return', () => {
  const unhandled = trackUnhandled();

  it('fails fast while Redis is away and works again when it returns, without a restart', async () => {
    const target = new URL(redisUrl!);
    const relay = await startRelay(target);
    const relayUrl = new URL(redisUrl!);
    relayUrl.hostname = '127.0.0.1';
    relayUrl.port = String(relay.port);
    const stores = await createStores({
      url: relayUrl.toString(),
      sessionTtlMs: 60_000,
      logger: silentLogger,
      namespacePrefix: randomPrefix(),
      operationTimeoutMs: OP_TIMEOUT_MS,
    });
    try {
      await stores.meta.set('before', 1);
      expect(await stores.meta.get('before')).toBe(1);

      relay.cut();
      await expectBounded(stores.meta.get('before'), 'get', OP_TIMEOUT_MS);
      expect(await stores.ping()).toBe(false);

      relay.restore();
      // Reconnects on its own: waited for as an event (a ping answered), the test's timeout the bound.
      while (!(await stores.ping())) await sleep(50);
      expect(await stores.meta.get('before')).toBe(1);
      await stores.meta.clear();
    } finally {
      await stores.close();
      await relay.close();
    }
    expect(unhandled).toEqual([]);
  });
});

describe('Redis that stops answering after the handshake', () => {
  const unhandled = trackUnhandled();

  it('bounds each operation instead of hanging', async () => {
    const sockets = new Set<net.Socket>();
    let answering = true;
    // Replies +OK to each command while `answering` (enough for the client's handshake), then goes silent.
    const server = net.createServer((s) => {
      sockets.add(s);
      s.on('error', () => {});
      s.on('data', (chunk) => {
        if (!answering) return;
        const commands = chunk.toString('latin1').match(/(^|\r\n)\*\d+\r\n/g)?.length ?? 0;
        s.write('+OK\r\n'.repeat(commands));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const stores = await createStores({
      url: `redis://127.0.0.1:${port}`,
      sessionTtlMs: 60_000,
      logger: silentLogger,
      operationTimeoutMs: 300,
    });
    try {
      await stores.settings.set('c', 1);
      answering = false;
      // The server never answers again: only each operation's own 300 ms bound can end it.
      await expect(stores.settings.get('c')).rejects.toThrow('timed out after 300 ms');
      await expect(stores.dedupe.firstSeen('e', 1_000)).rejects.toThrow('timed out after 300 ms');
      expect(await stores.ping()).toBe(false);
    } finally {
      // Nor does close() wait for its replies: it ends at its own timer (a hang fails the test's timeout).
      await stores.close();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
    expect(unhandled).toEqual([]);
  });
});
