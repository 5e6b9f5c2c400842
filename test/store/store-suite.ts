import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CancelledError, StoreError } from '../../src/errors.js';
import type { ChatMessage } from '../../src/llm/types.js';
import {
  appendTurn,
  clearChannelConversations,
  clearConversation,
  loadHistory,
} from '../../src/store/conversation-store.js';
import { LockTimeoutError, type ManagedLease } from '../../src/store/lock-service.js';
import type { Stores } from '../../src/store/types.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Short lease so renewal and expiry are exercised within a fast test. */
const SHORT_TTL_MS = 300;

export function randomPrefix(): string {
  return `scout-test-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * Time for the TTL checks. memory:// and sqlite:// expire entries by Date.now(): the check runs with
 * a fake Date the test moves by hand, so nothing between a write and its read can use up the TTL on
 * a busy machine. Redis expires them on its own clock: there time passes for real, with a TTL long
 * enough that a write and the read after it fit inside it.
 */
export function ttlClock(name: string) {
  const real = name === 'redis';
  return {
    ttlMs: real ? 1_000 : 150,
    async during(check: (pass: (ms: number) => Promise<void>) => Promise<void>): Promise<void> {
      if (real) return check(sleep as (ms: number) => Promise<void>);
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        await check(async (ms) => {
          vi.setSystemTime(Date.now() + ms);
        });
      } finally {
        vi.useRealTimers();
      }
    },
    /**
     * Like `during`, with the timers fake too (locks on memory:// and sqlite:// live in this process:
     * renewal and polling are timers, expiry is Date.now()), so a renewal cannot come late.
     */
    async duringTimers(check: (pass: (ms: number) => Promise<void>) => Promise<void>): Promise<void> {
      if (real) return check(sleep as (ms: number) => Promise<void>);
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
      try {
        await check(async (ms) => {
          await vi.advanceTimersByTimeAsync(ms);
        });
      } finally {
        vi.useRealTimers();
      }
    },
  };
}

/** The same behaviour, whatever the backend. `open` may be called several times (e.g. to close one). */
export function storeBehaviourSuite(name: string, open: () => Promise<Stores>): void {
  const ttl = ttlClock(name);
  describe(`${name} store`, () => {
    let stores: Stores;
    beforeAll(async () => {
      stores = await open();
    });
    afterAll(async () => {
      for (const ns of [stores.settings, stores.conversations, stores.searchCache, stores.meta]) {
        await ns.clear().catch(() => {});
      }
      await stores.close();
    });

    it('reports its backend and answers ping', async () => {
      expect(stores.backend).toBe(name);
      expect(await stores.ping()).toBe(true);
    });

    it('stores values and expires them after their TTL', async () => {
      await ttl.during(async (pass) => {
        await stores.settings.set('channel-a', { mode: 'agent', search: true });
        expect(await stores.settings.get('channel-a')).toEqual({ mode: 'agent', search: true });
        await stores.meta.set('short', 'soon gone', ttl.ttlMs);
        expect(await stores.meta.get('short')).toBe('soon gone');
        await pass(ttl.ttlMs + 100);
        expect(await stores.meta.get('short')).toBeUndefined();
        expect(await stores.meta.has('short')).toBe(false);
        expect(await stores.settings.has('channel-a')).toBe(true);
      });
    });

    it('gives back what was stored as a copy, text exactly as written', async () => {
      const record = { title: ':colon first', nested: { list: ['::two', 'é 🙂', ''] }, n: 1.5, no: null };
      await stores.searchCache.set('copy', record);
      const read = (await stores.searchCache.get('copy')) as typeof record;
      expect(read).toEqual(record);
      read.nested.list.push('changed after reading');
      expect(await stores.searchCache.get('copy')).toEqual(record);
      record.n = 2; // changing the original after storing does not change the stored value either
      expect(((await stores.searchCache.get('copy')) as typeof record).n).toBe(1.5);
    });

    it('keeps namespaces apart', async () => {
      await stores.settings.set('same-key', 'settings');
      await stores.meta.set('same-key', 'meta');
      expect(await stores.conversations.get('same-key')).toBeUndefined();
      expect(await stores.searchCache.get('same-key')).toBeUndefined();
      await stores.meta.clear();
      expect(await stores.meta.get('same-key')).toBeUndefined();
      expect(await stores.settings.get('same-key')).toBe('settings');
    });

    it('locks exclusively and hands the lock over in arrival order', async () => {
      const order: number[] = [];
      let inside = 0;
      let maxInside = 0;
      const first = await stores.locks.acquire('conv-fifo', { ttlMs: 2_000 });
      const waiters = [0, 1, 2, 3, 4].map(async (i) => {
        const lease = await stores.locks.acquire('conv-fifo', { ttlMs: 2_000 });
        inside++;
        maxInside = Math.max(maxInside, inside);
        order.push(i);
        await sleep(5);
        inside--;
        await lease.release();
      });
      await sleep(30);
      expect(order).toEqual([]);
      await first.release();
      await Promise.all(waiters);
      expect(order).toEqual([0, 1, 2, 3, 4]);
      expect(maxInside).toBe(1);
    });

    it('keeps a lease held past its TTL by renewing it', async () => {
      await ttl.duringTimers(async (pass) => {
        const lease = await stores.locks.acquire('conv-long', { ttlMs: SHORT_TTL_MS });
        await pass(SHORT_TTL_MS * 2.5);
        const blocked = stores.locks.acquire('conv-long', { waitMs: 100 }).then(
          () => 'acquired',
          (err: unknown) => err,
        );
        await pass(200);
        expect(await blocked).toBeInstanceOf(LockTimeoutError);
        await lease.release();
        const [next] = await Promise.all([stores.locks.acquire('conv-long', { waitMs: 500 }), pass(50)]);
        await next.release();
      });
    });

    it('frees an abandoned lock after its TTL', async () => {
      const crashed = (await stores.locks.acquire('conv-crash', { ttlMs: SHORT_TTL_MS })) as ManagedLease;
      crashed.abandon();
      const started = Date.now();
      // Freed: the waiter gets it (a lock never freed fails it with LockTimeoutError), and not before
      // the TTL ran out (a lower bound: a busy machine only makes the wait longer).
      const next = await stores.locks.acquire('conv-crash', { waitMs: 10_000 });
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(SHORT_TTL_MS - 100);
      await next.release();
      // A late release by the crashed holder must not free the new holder's lock.
      const holder = await stores.locks.acquire('conv-crash', { ttlMs: 2_000 });
      await crashed.release();
      await expect(stores.locks.acquire('conv-crash', { waitMs: 100 })).rejects.toBeInstanceOf(StoreError);
      await holder.release();
    });

    it('stops waiting when the signal aborts, without blocking later waiters', async () => {
      const holder = await stores.locks.acquire('conv-abort', { ttlMs: 2_000 });
      const controller = new AbortController();
      const cancelled = stores.locks.acquire('conv-abort', { signal: controller.signal });
      const later = stores.locks.acquire('conv-abort', { waitMs: 2_000 });
      setTimeout(() => controller.abort(), 30);
      await expect(cancelled).rejects.toBeInstanceOf(CancelledError);
      await holder.release();
      await (await later).release();
      const aborted = AbortSignal.abort();
      await expect(stores.locks.acquire('conv-abort', { signal: aborted })).rejects.toBeInstanceOf(
        CancelledError,
      );
    });

    it('dedupes: true the first time only, again after the TTL', async () => {
      expect(await stores.dedupe.firstSeen('event-1', 5_000)).toBe(true);
      expect(await stores.dedupe.firstSeen('event-1', 5_000)).toBe(false);
      expect(await stores.dedupe.firstSeen('event-2', 5_000)).toBe(true);
      expect(await stores.dedupe.firstSeen('event-3', 100)).toBe(true);
      await sleep(200);
      expect(await stores.dedupe.firstSeen('event-3', 100)).toBe(true);
    });

    it('appends, loads and clears conversation history', async () => {
      const turn1: ChatMessage[] = [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello', reasoning: 'greet back' },
      ];
      const turn2: ChatMessage[] = [
        { role: 'user', content: '天气如何？' },
        { role: 'assistant', content: '晴' },
      ];
      expect(await loadHistory(stores, 'c1')).toEqual([]);
      await appendTurn(stores, 'c1', 'chan-x', turn1, 60_000);
      await appendTurn(stores, 'c1', 'chan-x', turn2, 60_000);
      await appendTurn(stores, 'c2', 'chan-x', turn1, 60_000);
      await appendTurn(stores, 'c3', 'chan-y', turn2, 60_000);
      expect(await loadHistory(stores, 'c1')).toEqual([...turn1, ...turn2]);

      await clearConversation(stores, 'c2');
      expect(await loadHistory(stores, 'c2')).toEqual([]);

      expect(await clearChannelConversations(stores, 'chan-x')).toBe(1);
      expect(await loadHistory(stores, 'c1')).toEqual([]);
      expect(await loadHistory(stores, 'c3')).toEqual(turn2);
    });

    it('expires history with its TTL', async () => {
      await ttl.during(async (pass) => {
        await appendTurn(stores, 'c-ttl', 'chan-z', [{ role: 'user', content: 'x' }], ttl.ttlMs);
        expect(await loadHistory(stores, 'c-ttl')).toHaveLength(1);
        await pass(ttl.ttlMs + 100);
        expect(await loadHistory(stores, 'c-ttl')).toEqual([]);
      });
    });

    it('rejects with StoreError after close and pings false', async () => {
      const other = await open();
      await other.close();
      await other.close();
      expect(await other.ping()).toBe(false);
      await expect(other.settings.get('x')).rejects.toBeInstanceOf(StoreError);
      await expect(other.settings.set('x', 1)).rejects.toBeInstanceOf(StoreError);
    });
  });
}
