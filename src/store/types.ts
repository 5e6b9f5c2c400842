import type Keyv from 'keyv';
import type { Broadcast } from './broadcast.js';
import type { SharedPaceBudget } from './pace-budget.js';
import type { UsageCounters } from './usage-counters.js';

/** A held per-conversation lock. Renewed in the background while held; released explicitly or by TTL. */
export interface Lease {
  readonly key: string;
  /** Releases the lock (only if this holder still owns it). Safe to call twice. */
  release(): Promise<void>;
}

export interface LockService {
  /**
   * Waits (in order of arrival within one process; polling across instances) until the lock is free,
   * then holds it. The lease is renewed every ttlMs/3 until released, so a long turn keeps it; a
   * crashed holder's lock frees itself after ttlMs. Rejects with CancelledError when `signal` aborts
   * and with StoreError when the store is unreachable.
   */
  acquire(key: string, options?: { ttlMs?: number; signal?: AbortSignal; waitMs?: number }): Promise<Lease>;
}

export interface DedupeService {
  /** True the first time `key` is seen within ttlMs (atomic `SET NX PX` on Redis). */
  firstSeen(key: string, ttlMs: number): Promise<boolean>;
}

export type StoreBackend = 'memory' | 'sqlite' | 'redis';

/** All persistent state, in Keyv namespaces with TTLs. */
export interface Stores {
  readonly backend: StoreBackend;
  /** ChannelSettings per channel id. */
  readonly settings: Keyv;
  /** ConversationRecord per conversation id (history), TTL = SESSION_TTL. */
  readonly conversations: Keyv;
  /** Search cache per channel session. */
  readonly searchCache: Keyv;
  /** Small per-purpose records (Discord thread ownership, Slack answered-threads), TTL'd. */
  readonly meta: Keyv;
  readonly locks: LockService;
  readonly dedupe: DedupeService;
  /** Daily usage counters and running-turn slots (src/budget), atomic across instances on Redis. */
  readonly usage: UsageCounters;
  /** Messages between instances sharing the store (Redis only): the web chat's streams and Stop. */
  readonly broadcast?: Broadcast;
  /**
   * The write budget the instances sharing the store share (Redis only): Slack's workspace limits
   * and Discord's global limit are counted there for all of them (src/render/pace-budget.ts).
   */
  readonly paceBudget?: SharedPaceBudget;
  /** Round trip to the store, for /healthz. Resolves false instead of throwing. */
  ping(): Promise<boolean>;
  /** Why the store cannot work any more, when the backend knows (a deleted SQLite file); for /healthz. */
  problem?(): string | undefined;
  close(): Promise<void>;
}
