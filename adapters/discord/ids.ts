/**
 * Opaque identifiers for the core, built and parsed only here. Settings belong to a channel
 * (`discord:<guild|dm>:<channel>`; a thread's settings are its parent channel's); history belongs to
 * a conversation (`discord:<guild|dm>:<thread or channel>`).
 */

const PREFIX = 'discord';
/** Scope segment used for direct messages, which have no guild. */
export const DM_SCOPE = 'dm';

export interface DiscordPlace {
  /** Guild id, or undefined in a DM. */
  guildId?: string;
  /** The channel (or DM channel) messages are posted in; for a thread, its parent channel. */
  channelId: string;
  /** The thread, when the place is a thread. */
  threadId?: string;
}

export function channelKey(place: DiscordPlace): string {
  return `${PREFIX}:${place.guildId ?? DM_SCOPE}:${place.channelId}`;
}

export function conversationKey(place: DiscordPlace): string {
  return `${PREFIX}:${place.guildId ?? DM_SCOPE}:${place.threadId ?? place.channelId}`;
}

/** Parses an id built by `channelKey`/`conversationKey`; undefined when it is not a Discord id. */
export function parseKey(key: string): { guildId?: string; channelId: string } | undefined {
  const match = /^discord:([^:]+):([^:]+)$/.exec(key);
  if (!match) return undefined;
  const [, scope, channelId] = match;
  return scope === DM_SCOPE ? { channelId: channelId! } : { guildId: scope!, channelId: channelId! };
}

/** The minimal shape of a discord.js channel that `placeOf` reads. */
export interface ChannelLike {
  id: string;
  guildId?: string | null;
  parentId?: string | null;
  isThread(): boolean;
}

/** Where a message or interaction happened, from its discord.js channel. */
export function placeOf(channel: ChannelLike): DiscordPlace {
  const guildId = channel.guildId ?? undefined;
  if (channel.isThread()) {
    // A partial thread (after a restart) may not know its parent: the thread then scopes its own settings.
    return { guildId, channelId: channel.parentId ?? channel.id, threadId: channel.id };
  }
  return { guildId, channelId: channel.id };
}
