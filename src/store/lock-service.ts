import { randomUUID } from 'node:crypto';
import { CancelledError, StoreError } from '../errors.js';
import type { Logger } from '../logger.js';
import { toStoreError } from './bounded.js';
import type { LockBackend } from './lock-backend.js';
import type { Lease, LockService } from './types.js';

/**
 * A crashed holder's lock frees itself after this; renewed every third of it while held. Short, so a
 * dead instance's conversation is free again within seconds (the next message waits, visibly, that long).
 */
export const DEFAULT_LOCK_TTL_MS = 5_000;
/** How long a message waits behind earlier turns of its conversation before giving up. */
export const DEFAULT_LOCK_WAIT_MS = 10 * 60_000;
/** First retry delay while another instance holds the lock; doubles up to the max. */
const POLL_MIN_MS = 10;
/** Polling cap: a lock freed by another instance is picked up within about this long. */
const POLL_MAX_MS = 200;
/** Random extra delay so instances polling the same key do not retry in lockstep. */
const POLL_JITTER_MS = 20;

/** `acquire` waited `waitMs` without getting the lock. A StoreError, so it surfaces as a store problem. */
export class LockTimeoutError extends StoreError {
  constructor(waitMs: number) {
    super(`lock not acquired within ${waitMs} ms`);
  }
}

/** One local caller waiting for its turn; `wake` cuts its current sleep short. */
class Waiter {
  private wakeCurrent: (() => void) | undefined;

  wake(): void {
    this.wakeCurrent?.();
  }

  /** Resolves after `ms` or on wake; rejects with CancelledError when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.wakeCurrent = undefined;
      };
      const onAbort = () => {
        done();
        reject(new CancelledError('lock wait cancelled'));
      };
      const timer = setTimeout(() => {
        done();
        resolve();
      }, ms);
      this.wakeCurrent = () => {
        done();
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** A held lock. `abandon()` stops renewal without releasing: what a crashed holder leaves behind. */
export class ManagedLease implements Lease {
  private renewTimer: NodeJS.Timeout | undefined;
  private released = false;

  constructor(
    readonly key: string,
    private readonly token: string,
    private readonly service: QueuedLockService,
    ttlMs: number,
  ) {
    this.renewTimer = setInterval(() => void this.renew(ttlMs), Math.max(1, Math.floor(ttlMs / 3)));
    this.renewTimer.unref();
  }

  private async renew(ttlMs: number): Promise<void> {
    try {
      const stillHeld = await this.service.backend.renew(this.key, this.token, ttlMs);
      if (!stillHeld && !this.released) {
        this.service.logger.warn(
          { lock: this.key },
          'lock lease lost before release (renewal came too late)',
        );
        this.abandon();
      }
    } catch (err) {
      // Keep trying: the store may be back before the lease runs out.
      this.service.logger.warn(
        { lock: this.key, err: toStoreError(err, 'lock renew').message },
        'lock renewal failed',
      );
    }
  }

  abandon(): void {
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    this.service.forget(this);
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.abandon();
    try {
      await this.service.backend.release(this.key, this.token);
    } catch (err) {
      // The lease expires by itself; throwing here would hide the turn's own outcome in a `finally`.
      this.service.logger.warn(
        { lock: this.key, err: toStoreError(err, 'lock release').message },
        'lock release failed',
      );
    }
    this.service.wakeNext(this.key);
  }
}

/**
 * Locks with arrival order kept inside one process: local waiters queue per key and only the head
 * polls the backend, so messages of one conversation run in the order they came. Across instances
 * the heads compete by polling with jittered backoff.
 */
export class QueuedLockService implements LockService {
  private readonly queues = new Map<string, Waiter[]>();
  private readonly leases = new Set<ManagedLease>();

  constructor(
    readonly backend: LockBackend,
    readonly logger: Logger,
  ) {}

  async acquire(
    key: string,
    options: { ttlMs?: number; signal?: AbortSignal; waitMs?: number } = {},
  ): Promise<Lease> {
    const ttlMs = options.ttlMs ?? DEFAULT_LOCK_TTL_MS;
    const waitMs = options.waitMs ?? DEFAULT_LOCK_WAIT_MS;
    const { signal } = options;
    if (signal?.aborted) throw new CancelledError('lock wait cancelled');

    const deadline = Date.now() + waitMs;
    const waiter = new Waiter();
    const queue = this.queues.get(key) ?? [];
    this.queues.set(key, queue);
    queue.push(waiter);
    try {
      while (queue[0] !== waiter) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new LockTimeoutError(waitMs);
        await waiter.sleep(remaining, signal);
      }
      let delay = POLL_MIN_MS;
      for (;;) {
        if (signal?.aborted) throw new CancelledError('lock wait cancelled');
        const token = randomUUID();
        let acquired: boolean;
        try {
          acquired = await this.backend.tryAcquire(key, token, ttlMs);
        } catch (err) {
          throw toStoreError(err, 'lock acquire');
        }
        if (acquired) {
          const lease = new ManagedLease(key, token, this, ttlMs);
          this.leases.add(lease);
          return lease;
        }
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new LockTimeoutError(waitMs);
        await waiter.sleep(Math.min(delay + Math.random() * POLL_JITTER_MS, remaining), signal);
        delay = Math.min(delay * 2, POLL_MAX_MS);
      }
    } finally {
      const index = queue.indexOf(waiter);
      if (index >= 0) queue.splice(index, 1);
      if (queue.length === 0) {
        if (this.queues.get(key) === queue) this.queues.delete(key);
      } else if (index === 0) {
        queue[0]?.wake();
      }
    }
  }

  /** A local lease ended: let the next local waiter try at once instead of at its next poll. */
  wakeNext(key: string): void {
    this.queues.get(key)?.[0]?.wake();
  }

  forget(lease: ManagedLease): void {
    this.leases.delete(lease);
  }

  /** Stops every renewal (on close); the leases then expire by TTL. */
  stop(): void {
    for (const lease of [...this.leases]) lease.abandon();
  }
}
