import { bounded } from './bounded.js';
import type { LockBackend } from './lock-backend.js';
import type { RedisClient } from './redis-connection.js';

/** Extend the lease only if we still own it (a lost lease must not be revived over a new holder). */
const RENEW_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0`;

/** Delete only if we still own it (after our lease expired, someone else may hold the key). */
const RELEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0`;

/** Cross-instance locks: `SET key token NX PX ttl`, Lua compare-and-pexpire / compare-and-delete. */
export class RedisLockBackend implements LockBackend {
  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix: string,
    private readonly timeoutMs: number,
  ) {}

  private redisKey(key: string): string {
    return `${this.keyPrefix}${key}`;
  }

  async tryAcquire(key: string, token: string, ttlMs: number): Promise<boolean> {
    const reply = await bounded('lock acquire', this.timeoutMs, () =>
      this.client.set(this.redisKey(key), token, {
        condition: 'NX',
        expiration: { type: 'PX', value: ttlMs },
      }),
    );
    return reply === 'OK';
  }

  async renew(key: string, token: string, ttlMs: number): Promise<boolean> {
    const reply = await bounded('lock renew', this.timeoutMs, () =>
      this.client.eval(RENEW_SCRIPT, { keys: [this.redisKey(key)], arguments: [token, String(ttlMs)] }),
    );
    return reply === 1;
  }

  async release(key: string, token: string): Promise<void> {
    await bounded('lock release', this.timeoutMs, () =>
      this.client.eval(RELEASE_SCRIPT, { keys: [this.redisKey(key)], arguments: [token] }),
    );
  }
}
