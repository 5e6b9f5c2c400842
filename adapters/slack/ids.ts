/**
 * Opaque identifiers for the core. Only this adapter builds or parses them:
 * channel `slack:<team>:<channel>`, conversation `slack:<team>:<channel>:<thread_ts>`,
 * message `slack:<channel>:<ts>` (the core dedupes the app_mention + message double delivery on it).
 */

const PREFIX = 'slack';

export function channelId(team: string, channel: string): string {
  return `${PREFIX}:${team}:${channel}`;
}

export function conversationId(team: string, channel: string, threadTs: string): string {
  return `${PREFIX}:${team}:${channel}:${threadTs}`;
}

export function messageId(channel: string, ts: string): string {
  return `${PREFIX}:${channel}:${ts}`;
}

export interface ParsedConversation {
  team: string;
  channel: string;
  threadTs?: string;
}

/** Parses a channel or conversation id built above; undefined for anything else. */
export function parseId(id: string): ParsedConversation | undefined {
  const parts = id.split(':');
  if (parts[0] !== PREFIX || parts.length < 3 || parts.length > 4) return undefined;
  const [, team, channel, threadTs] = parts;
  if (!team || !channel) return undefined;
  return threadTs ? { team, channel, threadTs } : { team, channel };
}

/** DMs (im) have ids starting with D. */
export function isDirectChannel(channel: string): boolean {
  return channel.startsWith('D');
}
