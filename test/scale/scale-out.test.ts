/**
 * Issue 8 acceptance: several Scout instances on one real Redis (REDIS_URL), each with its own Redis
 * connection, core and Slack HTTP endpoint, all answering the same (fake) Slack workspace.
 * Skipped without REDIS_URL; with REDIS_URL set but Redis down, every test fails (see openStores).
 */
import { describe, expect, it } from 'vitest';
import { conversationId } from '../../adapters/slack/ids.js';
import type { Stores } from '../../src/store/types.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { visibleText } from '../slack/slack-harness.js';
import {
  CHANNEL,
  type Cluster,
  deleteNamespace,
  keysContaining,
  type LlmExchange,
  lastUserText,
  mention,
  nextTs,
  sleep,
  TEAM_ID,
  useCluster,
} from './scale-kit.js';

/** After the answer, how long a duplicate would have to show up (it would come within ms). */
const SETTLE_MS = 300;
/** The model's thinking time in the ordering tests: long enough that an overlap could not hide. */
const SLOW_LLM_MS = 300;
/** The conversation lock lease in the TTL tests (the core's own is 30 s). */
const SHORT_LOCK_TTL_MS = 400;

/** Every model reply names the question it answers, so answers and history can be traced. */
function answerEcho(cluster: Cluster, delayFor: (question: string) => number | 'hang' = () => 20): void {
  cluster.llm.fallback = (body) => {
    const question = lastUserText(body);
    const delay = delayFor(question);
    if (delay === 'hang') return { hang: true };
    return textReply(`Answer to: ${question}`, { delayMs: delay });
  };
}

/** The messages Scout posted in a thread, as users see them. */
function threadTexts(cluster: Cluster, threadTs: string): string[] {
  return cluster.slack.messagesIn(CHANNEL, threadTs).map((m) => visibleText(m.blocks));
}

async function waitForAnswers(cluster: Cluster, threadTs: string, questions: string[]): Promise<void> {
  await cluster.slack.waitFor(
    () => questions.every((q) => threadTexts(cluster, threadTs).some((t) => t.includes(`Answer to: ${q}`))),
    8_000,
    `answers to ${questions.join(', ')}`,
  );
}

async function waitForExchange(cluster: Cluster, n: number): Promise<LlmExchange> {
  await cluster.slack.waitFor(() => cluster.proxy.exchanges.length >= n, 8_000, `LLM request #${n}`);
  return cluster.proxy.exchanges[n - 1]!;
}

/** The whole conversation a model request carried, as one string. */
function carried(exchange: LlmExchange): string {
  return JSON.stringify(exchange.body.messages);
}

/** Makes every lock the core takes use a short lease (the renewal logic is the real one). */
function shortLockTtl(stores: Stores): Stores {
  return {
    ...stores,
    locks: { acquire: (key, options) => stores.locks.acquire(key, { ...options, ttlMs: SHORT_LOCK_TTL_MS }) },
  };
}

describe.skipIf(!process.env.REDIS_URL)('scale-out: two instances on one Redis', () => {
  const c = useCluster();

  it('answers a Slack event once when it and its retries reach both instances concurrently', async () => {
    const [a, b] = await Promise.all([c.startInstance('A'), c.startInstance('B')]);
    answerEcho(c);
    const ts = nextTs();
    const envelope = mention('EvSCALE0001', 'what is redis?', { ts });
    const retry = (n: number) => ({ 'X-Slack-Retry-Num': String(n), 'X-Slack-Retry-Reason': 'http_timeout' });
    const doubleDelivery = {
      ...envelope,
      event_id: 'EvSCALE0002',
      event: { ...(envelope.event as object), type: 'message', channel_type: 'channel' },
    };
    const responses = await Promise.all([
      a.post(envelope),
      b.post(envelope, retry(1)),
      a.post(envelope, retry(2)),
      b.post(envelope, retry(3)),
      b.post(envelope, retry(1)), // a load balancer replaying a retry to the other instance
      a.post(doubleDelivery),
      b.post(doubleDelivery),
    ]);
    expect(responses.map((r) => r.status)).toEqual(Array(responses.length).fill(200));

    // idle() covers every acknowledged delivery, including those still in their Redis dedupe check.
    await Promise.all([a.surface.idle(), b.surface.idle()]);
    const exactlyOnce = () => {
      expect(threadTexts(c, ts)).toEqual([expect.stringContaining('Answer to: what is redis?')]);
      expect(c.slack.callsTo('chat.postMessage').filter((call) => call.args.thread_ts === ts)).toHaveLength(
        1,
      );
      expect(c.proxy.exchanges).toHaveLength(1);
    };
    exactlyOnce();
    await sleep(SETTLE_MS);
    exactlyOnce();
  });

  it('runs two messages of one thread in order, never concurrently, across instances', async () => {
    const [a, b] = await Promise.all([c.startInstance('A'), c.startInstance('B')]);
    answerEcho(c, () => SLOW_LLM_MS);
    const thread = nextTs();

    // Same moment, different instances: whichever wins the lock goes first, the other waits.
    await Promise.all([
      a.post(mention('EvORDER01', 'q1', { threadTs: thread })),
      b.post(mention('EvORDER02', 'q2', { threadTs: thread })),
    ]);
    await waitForAnswers(c, thread, ['q1', 'q2']);
    const [first, second] = c.proxy.exchanges as [LlmExchange, LlmExchange];
    expect(first.end).toBeDefined();
    expect(second.start).toBeGreaterThanOrEqual(first.end!);
    const firstQ = lastUserText(first.body);
    expect(carried(second)).toContain(firstQ);
    expect(carried(second)).toContain(`Answer to: ${firstQ}`);
    // Posted in the order they were answered.
    expect(threadTexts(c, thread)).toEqual([
      expect.stringContaining(`Answer to: ${firstQ}`),
      expect.stringContaining(`Answer to: ${lastUserText(second.body)}`),
    ]);

    // One after the other: the earlier message (on B) is answered first, the later (on A) waits for it.
    await b.post(mention('EvORDER03', 'q3', { threadTs: thread }));
    const third = await waitForExchange(c, 3);
    expect(lastUserText(third.body)).toBe('q3');
    await a.post(mention('EvORDER04', 'q4', { threadTs: thread }));
    await waitForAnswers(c, thread, ['q3', 'q4']);
    const fourth = c.proxy.exchanges[3]!;
    expect(lastUserText(fourth.body)).toBe('q4');
    expect(fourth.start).toBeGreaterThanOrEqual(third.end!);
    for (const q of ['q1', 'q2', 'q3']) expect(carried(fourth)).toContain(`Answer to: ${q}`);
    expect(threadTexts(c, thread).slice(2)).toEqual([
      expect.stringContaining('Answer to: q3'),
      expect.stringContaining('Answer to: q4'),
    ]);
    expect(c.proxy.exchanges).toHaveLength(4);
  });

  it('keeps the lock through a turn longer than its TTL; a killed holder frees it after the TTL', async () => {
    const [a, b] = await Promise.all([
      c.startInstance('A', { wrapStores: shortLockTtl }),
      c.startInstance('B', { wrapStores: shortLockTtl }),
    ]);
    const LONG_MS = 4 * SHORT_LOCK_TTL_MS;
    answerEcho(c, (q) => (q === 'long' ? LONG_MS : q === 'never answered' ? 'hang' : 20));

    // A long turn on A renews its lease; B's message waits for the whole turn, not just one TTL.
    const thread = nextTs();
    await a.post(mention('EvTTL0001', 'long', { threadTs: thread }));
    const long = await waitForExchange(c, 1);
    await b.post(mention('EvTTL0002', 'after long', { threadTs: thread }));
    await waitForAnswers(c, thread, ['long', 'after long']);
    const after = c.proxy.exchanges[1]!;
    expect(long.end! - long.start).toBeGreaterThanOrEqual(LONG_MS - 20);
    expect(after.start).toBeGreaterThanOrEqual(long.end!);
    expect(carried(after)).toContain('Answer to: long');

    // A dies mid-turn (its renewals stop, nothing is released): B answers once the lease runs out.
    const thread2 = nextTs();
    await a.post(mention('EvTTL0003', 'never answered', { threadTs: thread2 }));
    await waitForExchange(c, 3);
    // Timed from before the close: its renewals stop there, and a slow close must not shorten the wait.
    const killedAt = Date.now();
    await a.stores.close();
    await b.post(mention('EvTTL0004', 'are you there?', { threadTs: thread2 }));
    await waitForAnswers(c, thread2, ['are you there?']);
    const rescued = c.proxy.exchanges[3]!;
    const waited = rescued.start - killedAt;
    // The lease was renewed at most TTL/3 before the kill, so it outlives it by at least 2/3 TTL.
    expect(waited).toBeGreaterThanOrEqual(SHORT_LOCK_TTL_MS / 2);
    // …and B picks it up soon after it expires (polling is capped at 200 ms), not after minutes:
    // within a second of the TTL, or three times what B took above to pick up a lock A released,
    // whichever is longer (a baseline from this test: a busy machine slows both alike).
    const pickUp = after.start - long.end!;
    expect(waited).toBeLessThan(SHORT_LOCK_TTL_MS + Math.max(1_000, 3 * pickUp));
    expect(carried(rescued)).not.toContain('never answered');

    // End the dead instance's hanging request without waiting for shutdown's grace period.
    a.h.scout.cancel(conversationId(TEAM_ID, CHANNEL, thread2));
  });

  it('continues a conversation with its history after a restart on the same Redis namespace', async () => {
    answerEcho(c);
    const first = await c.startInstance('A');
    const root = nextTs();
    await first.post(mention('EvRESTART1', 'remember the number 42', { ts: root }));
    await waitForAnswers(c, root, ['remember the number 42']);
    await first.close();

    const restarted = await c.startInstance('A, restarted');
    // A plain thread reply (no mention): answered only because Redis remembers Scout answered here.
    const followTs = nextTs();
    await restarted.post({
      ...mention('EvRESTART2', '', { ts: followTs, threadTs: root }),
      event: {
        type: 'message',
        user: 'U00FAKEUSER1',
        ts: followTs,
        thread_ts: root,
        text: 'which number?',
        channel: CHANNEL,
        channel_type: 'channel',
        event_ts: followTs,
      },
    });
    await waitForAnswers(c, root, ['which number?']);
    expect(c.proxy.exchanges).toHaveLength(2);
    const next = carried(c.proxy.exchanges[1]!);
    expect(next).toContain('remember the number 42');
    expect(next).toContain('Answer to: remember the number 42');
  });

  it('keeps every key of a conversation inside its namespace, so clean-up leaves nothing behind', async () => {
    const url = process.env.REDIS_URL!;
    answerEcho(c);
    const a = await c.startInstance('A');
    const ts = nextTs();
    await a.post(mention('EvCLEAN01', 'hello', { ts }));
    await waitForAnswers(c, ts, ['hello']);
    await a.close();
    // History, answered-thread marker and message dedupe all name the thread's ts.
    const keys = await keysContaining(url, ts);
    expect(keys.length).toBeGreaterThanOrEqual(3);
    expect(keys.filter((k) => !k.startsWith(`${c.namespacePrefix}:`))).toEqual([]);
    await deleteNamespace(url, c.namespacePrefix);
    expect(await keysContaining(url, ts)).toEqual([]);
  });
});
