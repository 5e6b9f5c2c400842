/**
 * The pacing budget several instances share on Redis (src/store/pace-budget.ts; the pacers' side: src/render/pace-budget.ts): one sorted set per
 * key and window, a write log scored by when each unit started (then, once its write ended, by when
 * it ended), and one Lua script that checks every window and takes a unit of each at once for every
 * instance. The clock is Redis's own (`TIME` inside the scripts), so instances whose clocks disagree
 * still count into the same window.
 */
import { bounded } from './bounded.js';
import { allowedOf, type SharedPaceBudget, type SharedTake, type SharedWindow } from './pace-budget.js';
import type { RedisClient } from './redis-connection.js';

/**
 * KEYS: one log per window. ARGV: member, then (perMs, allowed) per window. Returns 0 with the unit
 * taken, or how many ms until every window has room for it.
 */
const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait = 0
for i, key in ipairs(KEYS) do
  local per = tonumber(ARGV[i * 2])
  local allowed = tonumber(ARGV[i * 2 + 1])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - per)
  local used = redis.call('ZCARD', key)
  if used >= allowed then
    local leaving = redis.call('ZRANGE', key, used - allowed, used - allowed, 'WITHSCORES')
    local w = tonumber(leaving[2]) + per - now
    if w < 1 then w = 1 end
    if w > wait then wait = w end
  end
end
if wait > 0 then return wait end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[1])
  redis.call('PEXPIRE', key, tonumber(ARGV[i * 2]) * 2)
end
return 0`;

/** The unit's write ended: it counts from now on, for a window's length (only while still there). */
const DONE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for _, key in ipairs(KEYS) do redis.call('ZADD', key, 'XX', now, ARGV[1]) end
return 1`;

let units = 0;

export class RedisPaceBudget implements SharedPaceBudget {
  readonly #instance = Math.random().toString(36).slice(2, 10);

  constructor(
    private readonly client: RedisClient,
    /** e.g. `scout:pace:` */
    private readonly keyPrefix: string,
    private readonly timeoutMs: number,
  ) {}

  async take(key: string, windows: readonly SharedWindow[], urgent: boolean): Promise<SharedTake> {
    const keys = windows.map((w) => `${this.keyPrefix}${key}:${w.max}/${w.perMs}`);
    units += 1;
    const member = `${this.#instance}:${units}`;
    const args = [member];
    for (const w of windows) args.push(String(w.perMs), String(allowedOf(w, urgent)));
    const wait = Number(
      await bounded('pace take', this.timeoutMs, () =>
        this.client.eval(TAKE_SCRIPT, { keys, arguments: args }),
      ),
    );
    if (wait > 0) return { waitMs: wait };
    // Settling a unit is best effort: a unit whose update is lost counts from its start instead.
    const settle = (op: () => Promise<unknown>) => {
      void bounded('pace settle', this.timeoutMs, op).catch(() => {});
    };
    return {
      unit: {
        done: () => settle(() => this.client.eval(DONE_SCRIPT, { keys, arguments: [member] })),
        cancel: () => settle(() => Promise.all(keys.map((k) => this.client.zRem(k, member)))),
      },
    };
  }
}
