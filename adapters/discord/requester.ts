/**
 * Who sent a Discord message or interaction, in the shape the access lists judge
 * (src/core/allowed-channels.ts): the user id, the member's roles in a server, or a DM.
 */
import type { Requester } from '../../src/core/allowed-channels.js';

export function requesterOf(
  userId: string,
  roles: readonly string[] | undefined,
  direct: boolean,
): Requester {
  return direct ? { userId, direct: true } : { userId, roles: roles ?? [] };
}

/** An interaction's member roles: a GuildMember's role cache, or the raw id list Discord sends. */
export function interactionRoles(member: unknown): string[] | undefined {
  if (!member || typeof member !== 'object') return undefined;
  const roles = (member as { roles?: unknown }).roles;
  if (Array.isArray(roles)) return roles.map(String);
  const cache = (roles as { cache?: Map<string, unknown> } | undefined)?.cache;
  return cache ? [...cache.keys()] : undefined;
}
