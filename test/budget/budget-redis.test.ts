/**
 * Issue 29, "Done when": two Scout instances on one real Redis (REDIS_URL), each with its own
 * connection, core and store, sharing one fake LLM. A user at their limit cannot start turns on
 * either; MAX_TURNS_PER_USER holds across both; the day is Redis's, not the instance's clock.
 */
import { createClient } from '@keyv/redis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';
import { DAY_MS } from '../../src/store/usage-counters.js';
import { type FakeOpenAI, startFakeOpenAI, textReply } from '../helpers/fake-openai-server.js';
import { RecordingSink, startTestScout, type TestScout, testMessage } from '../helpers/scout-harness.js';
import { randomPrefix } from '../store/store-suite.js';

const redisUrl = process.env.REDIS_URL;
const PRICES = JSON.stringify({ 'openai/test-model': { input: 1000, output: 2000 } });

interface Pair {
  a: TestScout;
  b: TestScout;
  llm: FakeOpenAI;
  close(): Promise<void>;
}

async function startPair(env: Record<string, string>): Promise<Pair> {
  const namespacePrefix = randomPrefix();
  const llm = await startFakeOpenAI();
  const open = () =>
    createStores({ url: redisUrl!, sessionTtlMs: 60_000, logger: silentLogger, namespacePrefix });
  const storesA: Stores = await open();
  const storesB: Stores = await open();
  const a = await startTestScout({ llm, stores: storesA, env });
  const b = await startTestScout({ llm, stores: storesB, env });
  return {
    a,
    b,
    llm,
    async close() {
      await Promise.all([a.close(), b.close()]);
      await Promise.all([storesA.close(), storesB.close()]);
      await llm.close();
      // The counters outlive the test by a month otherwise.
      const client = createClient({ url: redisUrl! });
      await client.connect();
      for await (const keys of client.scanIterator({ MATCH: `${namespacePrefix}:*`, COUNT: 500 }))
        if (keys.length > 0) await client.del(keys);
      await client.close();
    },
  };
}

async function ask(scout: TestScout, text: string, overrides: Parameters<typeof testMessage>[1] = {}) {
  const sink = new RecordingSink();
  await scout.scout.handleMessage(testMessage(text, overrides), sink);
  return sink;
}

let pair: Pair | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await pair?.close();
  pair = undefined;
});

describe.skipIf(!redisUrl)('limits across two instances on one Redis', () => {
  it('a user at their daily limit cannot start turns on either instance', async () => {
    pair = await startPair({ PRICE_TABLE: PRICES, BUDGET_USER_DAILY_USD: '0.04' });
    pair.llm.fallback = () => textReply('An answer.');
    // $0.02 a turn: one on each instance reaches $0.04.
    expect((await ask(pair.a, 'q1', { conversationId: 'test:C1:A' })).final?.answer).toContain('An answer.');
    expect((await ask(pair.b, 'q2', { conversationId: 'test:C1:B' })).final?.answer).toContain('An answer.');
    const requests = pair.llm.requests.length;
    for (const scout of [pair.a, pair.b]) {
      const refused = await ask(scout, 'q3');
      expect(refused.replies).toEqual([expect.stringContaining('daily spending limit ($0.0400 per person)')]);
      expect(refused.final).toBeUndefined();
    }
    expect(pair.llm.requests.length).toBe(requests);
    // Both instances added to one count.
    const day = Math.floor((await pair.a.stores.usage.now()) / DAY_MS);
    const users = await pair.b.stores.usage.read(day, 'u');
    expect(users['U1\tusd']).toBeCloseTo(0.04, 10);
    expect(users['U1\tturns']).toBe(2);
  });

  it('MAX_TURNS_PER_USER holds across instances, even for turns that arrive at once', async () => {
    pair = await startPair({ MAX_TURNS_PER_USER: '2' });
    pair.llm.fallback = () => textReply('Slow answer.', { delayMs: 700 });
    const sinks = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        ask(i % 2 ? pair!.a : pair!.b, `q${i}`, { conversationId: `test:C1:T${i}` }),
      ),
    );
    const answered = sinks.filter((s) => s.final?.answer.includes('Slow answer.'));
    const refused = sinks.filter((s) =>
      s.replies.some((r) => r.includes('You already have 2 answers running')),
    );
    expect(answered).toHaveLength(2);
    expect(refused).toHaveLength(4);
    // Another person is not held by them; and once the two ended, the slots are free again.
    expect((await ask(pair.a, 'x', { userId: 'U2', conversationId: 'test:C1:U2' })).final?.answer).toContain(
      'Slow answer.',
    );
    expect((await ask(pair.b, 'y', { conversationId: 'test:C1:T9' })).final?.answer).toContain(
      'Slow answer.',
    );
  });

  it('counts into the day Redis says it is, whatever the instance clock says', async () => {
    pair = await startPair({ PRICE_TABLE: PRICES, BUDGET_USER_DAILY_USD: '0.02' });
    pair.llm.fallback = () => textReply('An answer.');
    const redisDay = Math.floor((await pair.a.stores.usage.now()) / DAY_MS);
    // Instance A's clock jumps three days ahead: its turn still counts today, where B sees it.
    const real = Date.now;
    vi.spyOn(Date, 'now').mockImplementation(() => real() + 3 * DAY_MS);
    await ask(pair.a, 'q1');
    vi.restoreAllMocks();
    expect((await pair.b.stores.usage.read(redisDay, 'u'))['U1\tusd']).toBeCloseTo(0.02, 10);
    expect((await pair.b.stores.usage.read(redisDay + 3, 'u'))['U1\tusd']).toBeUndefined();
    expect((await ask(pair.b, 'q2')).replies[0]).toContain('daily spending limit');
  });
});
