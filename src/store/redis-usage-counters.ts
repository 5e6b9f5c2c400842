/**
 * Usage counters on Redis, shared by every instance. Each step is one Lua script, so a check and the
 * slot it takes, or all of a turn's increments, happen at once for every instance. The day and the
 * clock are Redis's own (`TIME` inside the script): instances whose clocks disagree or jump still
 * count into the same day. Keys are built inside the scripts from the day Redis reports (a single
 * Redis or a primary with replicas, as the rest of the store; not Redis Cluster).
 */
import { bounded } from './bounded.js';
import type { RedisClient } from './redis-connection.js';
import {
  type AdmitOutcome,
  type AdmitRequest,
  type LimitName,
  type UsageCounters,
  type UsageDimension,
  type UsageIncrement,
  usageExpiry,
} from './usage-counters.js';

/**
 * ARGV: prefix, user, channel, userUsd, userTokens, channelUsd, channelTokens ('' = no limit),
 * slot max (0 = no slot), slot token, slot ttl ms. Returns { day, now ms, refused limit or '' }.
 */
const ADMIT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local day = math.floor(tonumber(t[1]) / 86400)
local p = ARGV[1]
local function over(dim, id, metric, limit)
  if limit == '' then return false end
  local v = redis.call('HGET', p .. day .. ':' .. dim, id .. '\\t' .. metric)
  return v and tonumber(v) >= tonumber(limit)
end
if over('u', ARGV[2], 'usd', ARGV[4]) then return {day, now, 'user-usd'} end
if over('u', ARGV[2], 'tokens', ARGV[5]) then return {day, now, 'user-tokens'} end
if over('c', ARGV[3], 'usd', ARGV[6]) then return {day, now, 'channel-usd'} end
if over('c', ARGV[3], 'tokens', ARGV[7]) then return {day, now, 'channel-tokens'} end
local max = tonumber(ARGV[8])
if max > 0 then
  local key = p .. 'slots:' .. ARGV[2]
  local ttl = tonumber(ARGV[10])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= max then return {day, now, 'concurrent'} end
  redis.call('ZADD', key, now + ttl, ARGV[9])
  redis.call('PEXPIRE', key, ttl)
end
return {day, now, ''}`;

/** ARGV: prefix .. day .. ':', expire-at ms, then (dimension, field, amount) triples. */
const ADD_SCRIPT = `
for i = 3, #ARGV, 3 do
  local key = ARGV[1] .. ARGV[i]
  redis.call('HINCRBYFLOAT', key, ARGV[i + 1], ARGV[i + 2])
  redis.call('PEXPIREAT', key, ARGV[2])
end
return 1`;

/** Extends a slot only while it is still there (a slot that expired stays gone). */
const RENEW_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`;

const limitArg = (value: number | undefined) => (value === undefined ? '' : String(value));

export class RedisUsageCounters implements UsageCounters {
  constructor(
    private readonly client: RedisClient,
    /** e.g. `scout:usage:` */
    private readonly keyPrefix: string,
    private readonly timeoutMs: number,
  ) {}

  async admit(request: AdmitRequest): Promise<AdmitOutcome> {
    const { limits, slot } = request;
    const reply = (await bounded('usage admit', this.timeoutMs, () =>
      this.client.eval(ADMIT_SCRIPT, {
        keys: [],
        arguments: [
          this.keyPrefix,
          request.userId,
          request.channelId,
          limitArg(limits.userUsd),
          limitArg(limits.userTokens),
          limitArg(limits.channelUsd),
          limitArg(limits.channelTokens),
          String(slot?.max ?? 0),
          slot?.token ?? '',
          String(slot?.ttlMs ?? 0),
        ],
      }),
    )) as [number, number, string];
    const [day, now, refused] = reply;
    return { day: Number(day), now: Number(now), ...(refused ? { refused: refused as LimitName } : {}) };
  }

  async add(day: number, increments: UsageIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    const args = [`${this.keyPrefix}${day}:`, String(usageExpiry(day))];
    for (const { dim, field, by } of increments) args.push(dim, field, String(by));
    await bounded('usage add', this.timeoutMs, () =>
      this.client.eval(ADD_SCRIPT, { keys: [], arguments: args }),
    );
  }

  async read(day: number, dim: UsageDimension): Promise<Record<string, number>> {
    const raw = await bounded('usage read', this.timeoutMs, () =>
      this.client.hGetAll(`${this.keyPrefix}${day}:${dim}`),
    );
    const out: Record<string, number> = {};
    for (const [field, value] of Object.entries(raw as Record<string, string>)) out[field] = Number(value);
    return out;
  }

  async renewSlot(userId: string, token: string, ttlMs: number): Promise<void> {
    await bounded('usage slot renew', this.timeoutMs, () =>
      this.client.eval(RENEW_SCRIPT, {
        keys: [`${this.keyPrefix}slots:${userId}`],
        arguments: [token, String(ttlMs)],
      }),
    );
  }

  async releaseSlot(userId: string, token: string): Promise<void> {
    await bounded('usage slot release', this.timeoutMs, () =>
      this.client.zRem(`${this.keyPrefix}slots:${userId}`, token),
    );
  }

  async now(): Promise<number> {
    const [seconds, micros] = (await bounded('usage time', this.timeoutMs, () => this.client.time())) as
      | [string, string]
      | [number, number];
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }
}
