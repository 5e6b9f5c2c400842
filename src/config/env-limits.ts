/**
 * The environment variables of the spend and token limits and of running answers per person
 * (src/budget; part of EnvSchema, env.ts).
 */
import * as z from '../schema/zod.js';
import { intIn, oneOf, optionalLimit } from './env-values.js';

export const LIMIT_FIELDS = {
  // ── Limits and usage (src/budget) ───────────────────────────────────────────
  /** Daily (UTC) spend per person / per channel in USD, from the price table; unset: no limit. */
  BUDGET_USER_DAILY_USD: optionalLimit(0.01, 100_000, false),
  BUDGET_CHANNEL_DAILY_USD: optionalLimit(0.01, 100_000, false),
  /** Daily (UTC) tokens per person / per channel, every model (the only bound for models without a price). */
  BUDGET_USER_DAILY_TOKENS: optionalLimit(1_000, 10_000_000_000, true),
  BUDGET_CHANNEL_DAILY_TOKENS: optionalLimit(1_000, 10_000_000_000, true),
  /** Answers one person may have running at once, across instances; 0: no limit. */
  MAX_TURNS_PER_USER: intIn(2, 0, 100),
  /** ADMIN_USERS are not held to the limits above. */
  BUDGET_EXEMPT_ADMINS: z.pipe(
    z._default(z.enum(['true', 'false', '1', '0', 'yes', 'no', '']), 'true'),
    z.transform((v) => v === 'true' || v === '1' || v === 'yes' || v === ''),
  ),
  /** The store cannot be asked while a turn starts: `open` lets it run (a warning), `closed` refuses it. */
  BUDGET_FAIL_MODE: oneOf(['open', 'closed'], 'open'),
};
