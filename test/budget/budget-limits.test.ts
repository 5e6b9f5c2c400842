/**
 * Issue 29, limits: the real core (buildScout) with its real OpenAI driver talking to the fake LLM
 * server, in memory. What the user sees when a limit is reached, what is counted, and how the core
 * behaves when the store cannot count.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { say } from '../../src/i18n/say.js';
import { silentLogger } from '../../src/logger.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';
import { DAY_MS, KeyvUsageCounters } from '../../src/store/usage-counters.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { RecordingSink, startTestScout, type TestScout, testMessage } from '../helpers/scout-harness.js';
import Keyv from 'keyv';

/** USD per 1M tokens: the fake's default usage (10 in, 5 out) costs 0.01 + 0.01 = $0.02 a turn. */
const PRICES = JSON.stringify({ 'openai/test-model': { input: 1000, output: 2000, cachedInput: 100 } });

let h: TestScout | undefined;
const extra: Stores[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const s of extra.splice(0)) await s.close();
});

async function ask(scout: TestScout, text: string, overrides: Parameters<typeof testMessage>[1] = {}) {
  const sink = new RecordingSink();
  await scout.scout.handleMessage(testMessage(text, overrides), sink);
  return sink;
}

const today = () => Math.floor(Date.now() / DAY_MS);

describe('usage limits (one instance, memory store)', () => {
  it('a user at their daily USD limit gets one private message naming it and the reset; a running turn finishes', async () => {
    h = await startTestScout({ env: { PRICE_TABLE: PRICES, BUDGET_USER_DAILY_USD: '0.03' } });
    h.llm.fallback = () => textReply('An answer.');
    // $0.02, then $0.04: the second turn passes the limit but, already under way, finishes.
    for (const n of [1, 2]) {
      const sink = await ask(h, `question ${n}`);
      expect(sink.final?.answer).toContain('An answer.');
      expect(sink.replies).toEqual([]);
    }
    const requests = h.llm.requests.length;
    const refused = await ask(h, 'question 3');
    expect(refused.final).toBeUndefined();
    expect(refused.updates).toEqual([]);
    expect(refused.replies).toHaveLength(1);
    expect(refused.replies[0]).toContain('daily spending limit ($0.0300 per person)');
    expect(refused.replies[0]).toMatch(/resets at 00:00 UTC, in \d+ (h \d+ )?min/);
    expect(h.llm.requests.length).toBe(requests);
    // Someone else is not held by this person's limit.
    const other = await ask(h, 'question', { userId: 'U2' });
    expect(other.final?.answer).toContain('An answer.');
  });

  it('a channel at its limit refuses everyone there, with the channel named as the reason', async () => {
    h = await startTestScout({ env: { PRICE_TABLE: PRICES, BUDGET_CHANNEL_DAILY_USD: '0.02' } });
    h.llm.fallback = () => textReply('An answer.');
    expect((await ask(h, 'q', { userId: 'U1' })).final?.answer).toContain('An answer.');
    const refused = await ask(h, 'q', { userId: 'U2' });
    expect(refused.replies[0]).toContain('This channel has reached its daily spending limit ($0.0200)');
    const elsewhere = await ask(h, 'q', { userId: 'U2', channelId: 'test:C2', conversationId: 'test:C2:T1' });
    expect(elsewhere.final?.answer).toContain('An answer.');
  });

  it('cached and reasoning tokens are counted and priced as billed', async () => {
    h = await startTestScout({ env: { PRICE_TABLE: PRICES } });
    const reply = textReply('Cached.', {
      usage: { inputTokens: 1000, outputTokens: 500, reasoningTokens: 200 },
    });
    // The provider reports 800 of the 1000 input tokens as read from its prompt cache.
    const usageChunk = reply.chunks.at(-1) as { usage: Record<string, unknown> };
    usageChunk.usage.prompt_tokens_details = { cached_tokens: 800 };
    h.llm.enqueue(reply);
    await ask(h, 'q');
    const users = await h.stores.usage.read(today(), 'u');
    // 200 plain × $1000/M + 800 cached × $100/M + 500 output (reasoning included) × $2000/M.
    expect(users['U1\tusd']).toBeCloseTo(0.2 + 0.08 + 1.0, 10);
    expect(users['U1\ttokens']).toBe(1500);
    expect(users['U1\tturns']).toBe(1);
    const models = await h.stores.usage.read(today(), 'm');
    expect(models['openai/test-model\tcalls']).toBe(1);
  });

  it('a provider that reports no usage is counted from the estimated tokens of the request and reply', async () => {
    h = await startTestScout({ env: { BUDGET_USER_DAILY_TOKENS: '1000' } });
    const long = 'word '.repeat(1200);
    h.llm.enqueue(textReply('A reply without usage.', { usage: false }));
    await ask(h, long);
    const users = await h.stores.usage.read(today(), 'u');
    // About 1200 tokens of question plus the reply: over the limit, though the provider said nothing.
    expect(users['U1\ttokens']).toBeGreaterThan(1200);
    expect(users['U1\tusd']).toBeUndefined();
    const refused = await ask(h, 'again');
    expect(refused.replies[0]).toContain('daily limit of 1,000 tokens per person');
  });

  it('a model without a price costs nothing in USD but is held by the token limit', async () => {
    h = await startTestScout({ env: { BUDGET_USER_DAILY_USD: '0.01', BUDGET_USER_DAILY_TOKENS: '1000' } });
    h.llm.fallback = () => textReply('Unpriced.', { usage: { inputTokens: 700, outputTokens: 400 } });
    expect((await ask(h, 'q1')).final?.answer).toContain('Unpriced.');
    const refused = await ask(h, 'q2');
    expect(refused.replies[0]).toContain('1,000 tokens');
    expect((await h.stores.usage.read(today(), 'u'))['U1\tusd']).toBeUndefined();
  });

  it('admins are exempt by default, and held with BUDGET_EXEMPT_ADMINS=false', async () => {
    const env = { PRICE_TABLE: PRICES, BUDGET_USER_DAILY_USD: '0.01', ADMIN_USERS: 'UADMIN' };
    h = await startTestScout({ env });
    h.llm.fallback = () => textReply('An answer.');
    for (const n of [1, 2, 3])
      expect((await ask(h, `q${n}`, { userId: 'UADMIN' })).final?.answer).toContain('An answer.');
    await h.close();
    h = await startTestScout({ env: { ...env, BUDGET_EXEMPT_ADMINS: 'false' } });
    h.llm.fallback = () => textReply('An answer.');
    await ask(h, 'q1', { userId: 'UADMIN' });
    expect((await ask(h, 'q2', { userId: 'UADMIN' })).replies[0]).toContain('daily spending limit');
  });

  it('MAX_TURNS_PER_USER: a third answer at once is refused privately; a slot frees when a turn ends', async () => {
    h = await startTestScout({ env: { MAX_TURNS_PER_USER: '2' } });
    // The first two answers are held by the model until the third question was refused: they are
    // running while it is asked, however slow the machine (events, not a 600 ms head start).
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    h.llm.fallback = () =>
      ++calls <= 2
        ? { ...textReply('Slow answer.'), holdAt: { index: 0, until: released } }
        : textReply('Slow answer.');
    const conv = (n: number) => ({ conversationId: `test:C1:T${n}` });
    const running = [ask(h, 'a', conv(1)), ask(h, 'b', conv(2))];
    // Both turns hold their slots once they call the model.
    const scout = h;
    await vi.waitFor(() => expect(scout.llm.requests).toHaveLength(2), { timeout: 15_000 });
    const third = await ask(h, 'c', conv(3));
    release();
    expect(third.replies[0]).toContain('You already have 2 answers running');
    expect(third.final).toBeUndefined();
    for (const sink of await Promise.all(running)) expect(sink.final?.answer).toContain('Slow answer.');
    expect((await ask(h, 'd', conv(4))).final?.answer).toContain('Slow answer.');
  });
});

describe('the store cannot count (Redis down)', () => {
  /** The memory store, except that usage goes to a Redis nobody listens on. */
  async function storesWithDeadUsage(): Promise<Stores> {
    const memory = await createStores({ url: 'memory://', sessionTtlMs: 60_000, logger: silentLogger });
    const dead = await createStores({
      url: 'redis://127.0.0.1:1',
      sessionTtlMs: 60_000,
      logger: silentLogger,
      operationTimeoutMs: 500,
    });
    extra.push(memory, dead);
    return Object.assign(Object.create(memory) as Stores, { usage: dead.usage });
  }

  it('BUDGET_FAIL_MODE=open (the default): the turn runs, and nothing crashes', async () => {
    const stores = await storesWithDeadUsage();
    h = await startTestScout({ stores, env: { BUDGET_USER_DAILY_USD: '1', PRICE_TABLE: PRICES } });
    h.llm.enqueue(textReply('Answered anyway.'));
    const sink = await ask(h, 'q');
    expect(sink.final?.answer).toContain('Answered anyway.');
    expect(sink.final?.error).toBeUndefined();
    expect(sink.replies).toEqual([]);
  });

  it('BUDGET_FAIL_MODE=closed: one private message says limits cannot be checked; no turn starts', async () => {
    const stores = await storesWithDeadUsage();
    h = await startTestScout({ stores, env: { BUDGET_FAIL_MODE: 'closed', MAX_TURNS_PER_USER: '2' } });
    const sink = await ask(h, 'q');
    expect(sink.replies).toEqual([expect.stringContaining('cannot check the usage limits right now')]);
    expect(sink.final).toBeUndefined();
    expect(h.llm.requests).toHaveLength(0);
  });

  it('/usage says the store is unreachable instead of failing', async () => {
    const stores = await storesWithDeadUsage();
    h = await startTestScout({ stores });
    const reply = await h.scout.runCommand('usage', '', { channelId: 'test:C1', userId: 'U1' });
    expect(say('en', reply.text)).toContain('Usage cannot be read right now');
  });
});

describe('a clock that jumps', () => {
  it('moves new counts to the day it says, never rewriting or resetting another day', async () => {
    let now = Date.UTC(2026, 0, 10, 12);
    const counters = new KeyvUsageCounters(new Keyv(), () => now);
    const request = { userId: 'U1', channelId: 'C1', limits: { userUsd: 1 } };
    const day = (await counters.admit(request)).day;
    await counters.add(day, [{ dim: 'u', field: 'U1\tusd', by: 1 }]);
    expect((await counters.admit(request)).refused).toBe('user-usd');
    // Two days back: that day's (empty) counters decide; the 10th's are untouched.
    now -= 2 * DAY_MS;
    const back = await counters.admit(request);
    expect(back.refused).toBeUndefined();
    await counters.add(back.day, [{ dim: 'u', field: 'U1\tusd', by: 0.5 }]);
    now += 2 * DAY_MS;
    expect(await counters.read(day, 'u')).toEqual({ 'U1\tusd': 1 });
    expect((await counters.admit(request)).refused).toBe('user-usd');
  });
});
