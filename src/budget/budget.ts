/**
 * Spending limits and running-turn slots (issue 29, item 1). `admit` runs before a turn starts: it
 * checks today's spend and tokens of the asker and of the channel against the configured limits and
 * takes one of the asker's MAX_TURNS_PER_USER slots, in one atomic store step (one Lua script on
 * Redis, shared by every instance). `finish` runs when the turn ended, however it ended: it adds what
 * the turn used to the day's counters and frees the slot. A turn under way always finishes; the
 * limits only refuse the next one. A day is the store's UTC day (see src/store/usage-counters.ts).
 *
 * The store failing while a turn is admitted never crashes anything: BUDGET_FAIL_MODE=open lets the
 * turn run (warning logged, nothing held), `closed` refuses it with a message saying why.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../config/env.js';
import { type Phrase, phrase, type UserText } from '../i18n/phrase.js';
import { loadPriceTable, type PriceTable } from '../llm/pricing.js';
import type { Logger } from '../logger.js';
import { throttledErrorLog } from '../store/bounded.js';
import type { Stores } from '../store/types.js';
import {
  type AdmitRequest,
  DAY_MS,
  type LimitName,
  type UsageIncrement,
  usageField,
} from '../store/usage-counters.js';
import type { Locale, TurnSink } from '../surface.js';
import { formatTokens, formatUsd } from './format.js';
import { TurnMeter } from './turn-meter.js';

/** A slot outlives a crashed holder by at most this long; renewed every third of it while held. */
export const SLOT_TTL_MS = 30_000;

export interface Admission {
  /** Set when the turn must not start: the private message for the asker (`replyPrivately`). */
  refusal?: Phrase;
  /** Wraps the turn's model clients and tools so their use is counted. */
  meter: TurnMeter;
  /** Records what the turn used and frees its slot. Never throws. */
  finish(): Promise<void>;
}

export interface Asker {
  userId: string;
  channelId: string;
}

export class Budget {
  private readonly prices: PriceTable;
  private readonly warn: (err: unknown) => void;

  constructor(
    private readonly config: Config,
    private readonly stores: Stores,
    private readonly logger: Logger,
  ) {
    this.prices = loadPriceTable(config.env.PRICE_TABLE);
    this.warn = throttledErrorLog((message) =>
      logger.warn(
        { err: message, failMode: config.env.BUDGET_FAIL_MODE },
        'usage limits could not be checked',
      ),
    );
  }

  /** Whether ADMIN_USERS exempts this user from the limits. */
  exempt(userId: string): boolean {
    const env = this.config.env;
    return env.BUDGET_EXEMPT_ADMINS && env.ADMIN_USERS.includes(userId);
  }

  /** The limits that apply to this user (none for an exempt admin); `daily`: any daily limit at all. */
  limitsFor(userId: string): { limits: AdmitRequest['limits']; daily: boolean; maxTurns: number } {
    if (this.exempt(userId)) return { limits: {}, daily: false, maxTurns: 0 };
    const env = this.config.env;
    const limits: AdmitRequest['limits'] = {};
    if (env.BUDGET_USER_DAILY_USD !== undefined) limits.userUsd = env.BUDGET_USER_DAILY_USD;
    if (env.BUDGET_USER_DAILY_TOKENS !== undefined) limits.userTokens = env.BUDGET_USER_DAILY_TOKENS;
    if (env.BUDGET_CHANNEL_DAILY_USD !== undefined) limits.channelUsd = env.BUDGET_CHANNEL_DAILY_USD;
    if (env.BUDGET_CHANNEL_DAILY_TOKENS !== undefined) limits.channelTokens = env.BUDGET_CHANNEL_DAILY_TOKENS;
    return { limits, daily: Object.keys(limits).length > 0, maxTurns: env.MAX_TURNS_PER_USER };
  }

  /**
   * Whether a daily limit refuses this asker now, checked without taking a slot or counting
   * anything: for a surface that would otherwise make something public before the core admits the
   * turn (Discord opens a thread). A store failure answers false; `admit` then decides, by
   * BUDGET_FAIL_MODE.
   */
  async overDailyLimit(asker: Asker): Promise<boolean> {
    const { limits, daily } = this.limitsFor(asker.userId);
    if (!daily) return false;
    try {
      return (await this.stores.usage.admit({ ...asker, limits })).refused !== undefined;
    } catch (err) {
      this.warn(err);
      return false;
    }
  }

  /** `locale` formats the numbers of a refusal (token counts); the sink says its words. */
  async admit(asker: Asker, locale: Locale): Promise<Admission> {
    const meter = new TurnMeter();
    const { limits, daily, maxTurns } = this.limitsFor(asker.userId);
    const token = randomUUID();
    const request: AdmitRequest = {
      ...asker,
      limits,
      ...(maxTurns > 0 ? { slot: { token, max: maxTurns, ttlMs: SLOT_TTL_MS } } : {}),
    };
    let day = Math.floor(Date.now() / DAY_MS);
    let held = false;
    // Nothing to check: no store round trip before the turn.
    if (request.slot || daily) {
      try {
        const outcome = await this.stores.usage.admit(request);
        day = outcome.day;
        if (outcome.refused) {
          this.logger.info({ user: asker.userId, limit: outcome.refused }, 'turn refused: usage limit');
          const refusal = this.refusalText(outcome.refused, outcome.now, locale);
          return { refusal, meter, finish: async () => {} };
        }
        held = Boolean(request.slot);
      } catch (err) {
        this.warn(err);
        if (this.config.env.BUDGET_FAIL_MODE === 'closed')
          return { refusal: phrase('budget.unavailable'), meter, finish: async () => {} };
      }
    }
    const renew = held
      ? setInterval(() => {
          this.stores.usage.renewSlot(asker.userId, token, SLOT_TTL_MS).catch((err) => this.warn(err));
        }, SLOT_TTL_MS / 3)
      : undefined;
    renew?.unref();
    let finished = false;
    return {
      meter,
      finish: async () => {
        if (finished) return;
        finished = true;
        clearInterval(renew);
        await this.record(day, asker, meter);
        if (held)
          await this.stores.usage.releaseSlot(asker.userId, token).catch((err) => {
            // The slot frees itself after SLOT_TTL_MS.
            this.logger.warn({ err: String(err) }, 'turn slot release failed');
          });
      },
    };
  }

  /** Adds a finished turn to the day it was admitted on: the asker, the channel, models and tools. */
  private async record(day: number, asker: Asker, meter: TurnMeter): Promise<void> {
    try {
      const totals = await meter.totals(this.prices);
      const increments: UsageIncrement[] = [];
      const add = (dim: UsageIncrement['dim'], id: string, metric: string, by: number) => {
        if (by !== 0) increments.push({ dim, field: usageField(id, metric), by });
      };
      for (const [dim, id] of [
        ['u', asker.userId],
        ['c', asker.channelId],
      ] as const) {
        add(dim, id, 'usd', totals.usd);
        add(dim, id, 'tokens', totals.tokens);
        add(dim, id, 'turns', 1);
      }
      for (const [label, model] of totals.models) {
        add('m', label, 'usd', model.usd);
        add('m', label, 'tokens', model.tokens);
        add('m', label, 'calls', model.calls);
      }
      for (const [name, calls] of totals.tools) add('t', name, 'calls', calls);
      await this.stores.usage.add(day, increments);
    } catch (err) {
      // Never a crash, never a failed turn: the answer is already on screen.
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'turn usage not recorded');
    }
  }

  private refusalText(limit: LimitName, now: number, locale: Locale): Phrase {
    const env = this.config.env;
    const value: Record<LimitName, string> = {
      'user-usd': formatUsd(env.BUDGET_USER_DAILY_USD ?? 0),
      'user-tokens': formatTokens(env.BUDGET_USER_DAILY_TOKENS ?? 0, locale),
      'channel-usd': formatUsd(env.BUDGET_CHANNEL_DAILY_USD ?? 0),
      'channel-tokens': formatTokens(env.BUDGET_CHANNEL_DAILY_TOKENS ?? 0, locale),
      concurrent: String(env.MAX_TURNS_PER_USER),
    };
    const untilReset = (Math.floor(now / DAY_MS) + 1) * DAY_MS - now;
    return phrase(`budget.refused.${limit}`, { limit: value[limit], resetIn: formatDuration(untilReset) });
  }
}

/** "3 h 12 min", "45 min", "1 min". */
export function formatDuration(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return hours > 0 ? `${hours} h ${rest} min` : `${rest} min`;
}

/**
 * A message for the asker alone: `replyPrivately` where the surface's `reply` is public. `isError`:
 * the message is not the answer asked for (a refused turn), for surfaces that report an outcome.
 */
export function replyPrivately(
  sink: TurnSink,
  text: UserText,
  options?: { isError?: boolean },
): Promise<void> {
  return sink.replyPrivately ? sink.replyPrivately(text, options) : sink.reply(text, options);
}
