/**
 * Who may use Scout where: `ALLOWED_CHANNELS` (where Scout answers and takes commands) and the access
 * lists `ALLOWED_USERS`, `BLOCKED_USERS`, `ALLOWED_ROLES` (who). The one place that decides access, for
 * the core (messages, slash commands, settings panels) and for adapters that act before the core sees a
 * message (Discord opens a thread on a mention) or without it (buttons), so a refused place or person
 * sees no trace of Scout.
 */
import type { Config } from '../config/env.js';

/**
 * True when the list is empty or names the channel. Ids are the platform's own (`C123`, a Discord
 * channel snowflake); the core's opaque ids end with `:<platform id>`, so both forms match.
 */
export function isChannelAllowed(config: Pick<Config, 'env'>, channelId: string): boolean {
  const allowed = config.env.ALLOWED_CHANNELS;
  if (allowed.length === 0) return true;
  return allowed.some((id) => channelId === id || channelId.endsWith(`:${id}`));
}

/** Who is asking, as far as access is concerned. */
export interface Requester {
  /** The platform's own user id (`U123`, a Discord user snowflake). */
  userId: string;
  /** Discord: the member's role ids, for a message or command in a server. */
  roles?: readonly string[];
  /** Discord: a direct message (no member, so no roles). */
  direct?: boolean;
}

/**
 * True when the user may use Scout. `BLOCKED_USERS` always wins; a user in `ALLOWED_USERS` is allowed;
 * with `ALLOWED_ROLES` set, a Discord member needs one of those roles and a Discord DM needs the user
 * in `ALLOWED_USERS` (a DM carries no roles); otherwise a set `ALLOWED_USERS` admits only its users.
 * Platforms without roles (Slack) pass neither `roles` nor `direct`, so `ALLOWED_ROLES` does not apply.
 */
export function isUserAllowed(config: Pick<Config, 'env'>, who: Requester): boolean {
  const { ALLOWED_USERS: users, BLOCKED_USERS: blocked, ALLOWED_ROLES: roles } = config.env;
  if (blocked.includes(who.userId)) return false;
  if (users.includes(who.userId)) return true;
  if (roles.length > 0) {
    if (who.roles) return who.roles.some((role) => roles.includes(role));
    if (who.direct) return false;
  }
  return users.length === 0;
}
