/**
 * The environment variables of conversations and their store, locale and time zone, operator
 * instructions and access lists (part of EnvSchema, env.ts).
 */
import { checkedString, duration, list, oneOf, optionalString } from './env-values.js';

export const STORE_FIELDS = {
  // ── Conversation and store ──────────────────────────────────────────────────
  STORE_URL: checkedString(
    'sqlite://data/scout.sqlite',
    (v) => /^(sqlite|memory|redis|rediss):\/\//.test(v),
    'must start with sqlite://, memory:// or redis://',
  ),
  SESSION_TTL: duration('24h'),
  BOT_LOCALE: oneOf(['en', 'zh'], 'en'),
  TIMEZONE: checkedString(
    'UTC',
    (tz) => {
      // The default needs no check, and the first Intl formatter of a process costs 30–100 ms (ICU).
      if (tz === 'UTC') return true;
      try {
        new Intl.DateTimeFormat('en', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    },
    'unknown time zone',
  ),
  ALLOWED_CHANNELS: list,
  ADMIN_USERS: list,
  /** Default operator instructions for channels without their own `/instructions` (one of the two). */
  SCOUT_INSTRUCTIONS: optionalString,
  SCOUT_INSTRUCTIONS_FILE: optionalString,
  /** Access lists (src/core/allowed-channels.ts): platform user ids; BLOCKED_USERS wins. */
  ALLOWED_USERS: list,
  BLOCKED_USERS: list,
  /** Discord role ids: when set, only members with one of them (DMs need ALLOWED_USERS). */
  ALLOWED_ROLES: list,
};
