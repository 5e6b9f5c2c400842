/**
 * Daily usage counters and per-user turn slots (src/budget reads and writes them). Days are UTC day
 * numbers (whole days since the epoch) taken from ONE clock: Redis's own (`TIME`, inside the scripts)
 * on Redis, so instances with skewed clocks agree on the day; this process's on memory:// and
 * sqlite:// (one instance). Counts are only ever added to the bucket of a day, never reset or
 * rewritten, so a clock that jumps moves new counts to another day's bucket but cannot corrupt any.
 *
 * Layout: per day, one hash per dimension (`u` users, `c` channels, `m` models, `t` tools) whose
 * fields are `<id>\t<metric>` (usd, tokens, turns, calls). Each hash expires USAGE_RETENTION_DAYS after
 * its day ended (an absolute time derived from the day, so every writer sets the same expiry).
 */
import type Keyv from 'keyv';

export const DAY_MS = 86_400_000;
/** A day's counters are kept this long after it ended: enough for `/usage`'s 30 days. */
export const USAGE_RETENTION_DAYS = 32;

export type UsageDimension = 'u' | 'c' | 'm' | 't';
export type LimitName = 'user-usd' | 'user-tokens' | 'channel-usd' | 'channel-tokens' | 'concurrent';

/** Field name within a dimension's hash. */
export const usageField = (id: string, metric: string) => `${id}\t${metric}`;

/** When a day's counters go: the end of the day plus the retention. */
export const usageExpiry = (day: number) => (day + 1 + USAGE_RETENTION_DAYS) * DAY_MS;

export interface AdmitRequest {
  userId: string;
  channelId: string;
  /** Spend/tokens at or over these refuse the turn; absent: no limit. */
  limits: { userUsd?: number; userTokens?: number; channelUsd?: number; channelTokens?: number };
  /** A running-turn slot to take (absent: none is taken). */
  slot?: { token: string; max: number; ttlMs: number };
}

export interface AdmitOutcome {
  /** The UTC day number the store's clock says it is. */
  day: number;
  /** The store's clock, ms since the epoch (for "resets in …"). */
  now: number;
  /** The limit that refused the turn; absent: admitted (and the slot, if asked, taken). */
  refused?: LimitName;
}

export interface UsageIncrement {
  dim: UsageDimension;
  field: string;
  by: number;
}

export interface UsageCounters {
  /** Checks the day's counters against the limits and takes a slot, in one atomic step. */
  admit(request: AdmitRequest): Promise<AdmitOutcome>;
  /** Adds to the day's counters (atomically, all or nothing on Redis). */
  add(day: number, increments: UsageIncrement[]): Promise<void>;
  /** One dimension of one day, field → value. */
  read(day: number, dim: UsageDimension): Promise<Record<string, number>>;
  /** Extends a slot still held (a crashed holder's slot frees itself after ttlMs). */
  renewSlot(userId: string, token: string, ttlMs: number): Promise<void>;
  releaseSlot(userId: string, token: string): Promise<void>;
  /** The store's idea of now (ms), for reports. */
  now(): Promise<number>;
}

type Hash = Record<string, number>;

/**
 * memory:// and sqlite:// (one instance): hashes as Keyv values, changed one at a time in this
 * process (every read-modify-write runs on one promise chain, so none is lost), slots in memory.
 */
export class KeyvUsageCounters implements UsageCounters {
  private chain: Promise<unknown> = Promise.resolve();
  private readonly slots = new Map<string, Map<string, number>>();

  constructor(
    private readonly keyv: Keyv,
    private readonly clock: () => number = Date.now,
  ) {}

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private key(day: number, dim: UsageDimension): string {
    return `${day}:${dim}`;
  }

  private async hash(day: number, dim: UsageDimension): Promise<Hash> {
    return ((await this.keyv.get(this.key(day, dim))) as Hash | undefined) ?? {};
  }

  admit(request: AdmitRequest): Promise<AdmitOutcome> {
    return this.serial(async () => {
      const now = this.clock();
      const day = Math.floor(now / DAY_MS);
      const { userId, channelId, limits } = request;
      const users = await this.hash(day, 'u');
      const channels = await this.hash(day, 'c');
      const over = (hash: Hash, field: string, limit: number | undefined) =>
        limit !== undefined && (hash[field] ?? 0) >= limit;
      const refused: LimitName | undefined = over(users, usageField(userId, 'usd'), limits.userUsd)
        ? 'user-usd'
        : over(users, usageField(userId, 'tokens'), limits.userTokens)
          ? 'user-tokens'
          : over(channels, usageField(channelId, 'usd'), limits.channelUsd)
            ? 'channel-usd'
            : over(channels, usageField(channelId, 'tokens'), limits.channelTokens)
              ? 'channel-tokens'
              : undefined;
      if (refused) return { day, now, refused };
      if (request.slot) {
        const held = this.liveSlots(userId, now);
        if (held.size >= request.slot.max) return { day, now, refused: 'concurrent' };
        held.set(request.slot.token, now + request.slot.ttlMs);
      }
      return { day, now };
    });
  }

  private liveSlots(userId: string, now: number): Map<string, number> {
    let held = this.slots.get(userId);
    if (!held) {
      held = new Map();
      this.slots.set(userId, held);
    }
    for (const [token, expires] of held) if (expires <= now) held.delete(token);
    return held;
  }

  add(day: number, increments: UsageIncrement[]): Promise<void> {
    return this.serial(async () => {
      const ttl = Math.max(DAY_MS, usageExpiry(day) - this.clock());
      const byDim = new Map<UsageDimension, UsageIncrement[]>();
      for (const inc of increments) byDim.set(inc.dim, [...(byDim.get(inc.dim) ?? []), inc]);
      for (const [dim, list] of byDim) {
        const hash = await this.hash(day, dim);
        for (const { field, by } of list) hash[field] = (hash[field] ?? 0) + by;
        await this.keyv.set(this.key(day, dim), hash, ttl);
      }
    });
  }

  read(day: number, dim: UsageDimension): Promise<Hash> {
    return this.hash(day, dim);
  }

  async renewSlot(userId: string, token: string, ttlMs: number): Promise<void> {
    const held = this.slots.get(userId);
    if (held?.has(token)) held.set(token, this.clock() + ttlMs);
  }

  async releaseSlot(userId: string, token: string): Promise<void> {
    const held = this.slots.get(userId);
    held?.delete(token);
    if (held?.size === 0) this.slots.delete(userId);
  }

  async now(): Promise<number> {
    return this.clock();
  }
}
