/**
 * `ALLOWED_CHANNELS`: where Scout answers and takes commands. One check for the core (messages,
 * slash commands, settings panels) and for adapters that act before the core sees a message (Discord
 * opens a thread on a mention), so a channel that is not allowed sees no trace of Scout.
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
