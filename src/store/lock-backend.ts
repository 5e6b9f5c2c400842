/**
 * Where a lock lives. The lock service adds local FIFO ordering, polling, renewal and cancellation on
 * top; a backend only needs three atomic steps keyed by a random holder token.
 */
export interface LockBackend {
  /** Takes the lock when it is free or its lease expired; true when this token now holds it. */
  tryAcquire(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Extends the lease only while `token` still holds it; false when the lease was lost. */
  renew(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Frees the lock only while `token` still holds it (a late release never frees someone else's). */
  release(key: string, token: string): Promise<void>;
}

/** Single-process backend for memory:// and sqlite:// (SQLite means one instance). */
export class MemoryLockBackend implements LockBackend {
  private readonly held = new Map<string, { token: string; expiresAt: number }>();

  async tryAcquire(key: string, token: string, ttlMs: number): Promise<boolean> {
    const current = this.held.get(key);
    if (current && current.expiresAt > Date.now()) return false;
    this.held.set(key, { token, expiresAt: Date.now() + ttlMs });
    return true;
  }

  async renew(key: string, token: string, ttlMs: number): Promise<boolean> {
    const current = this.held.get(key);
    if (!current || current.token !== token || current.expiresAt <= Date.now()) return false;
    current.expiresAt = Date.now() + ttlMs;
    return true;
  }

  async release(key: string, token: string): Promise<void> {
    if (this.held.get(key)?.token === token) this.held.delete(key);
  }
}
