import type { RawStore } from './bounded-adapter.js';
import type { Broadcast } from './broadcast.js';
import type { LockBackend } from './lock-backend.js';
import type { SharedPaceBudget } from './pace-budget.js';
import type { DedupeService } from './types.js';
import type { UsageCounters } from './usage-counters.js';

/** The pieces of a store that differ per backend; everything else is shared (create-stores.ts). */
export interface BackendParts {
  rawStore(namespace: string): RawStore;
  lockBackend: LockBackend;
  dedupe: DedupeService;
  /** Shared usage counters (Redis); absent: kept in a Keyv namespace by this process. */
  usage?: UsageCounters;
  /** Messages between instances (Redis pub/sub); absent on a store one instance has to itself. */
  broadcast?: Broadcast;
  /** The pacing budget the instances share (Redis); absent: each instance paces alone. */
  paceBudget?: SharedPaceBudget;
  ping(): Promise<boolean>;
  /** Why the store cannot work any more, when the backend knows (a deleted SQLite file). */
  problem?(): string | undefined;
  close(): Promise<void>;
}
