/**
 * search_workspace on Discord (issue 59). Bots have no search endpoint, so Scout reads the recent
 * history of the channels the asker may view and ranks it with BM25 (MiniSearch, as the reader
 * does). Which channels depends on who reads the answer:
 * - a server channel (or a thread in one): the text and announcement channels of that server that
 *   BOTH @everyone and the asker may view and read the history of — everyone who reads the answer
 *   there can read those channels too, whatever roles they hold;
 * - a DM with Scout: the answer is for the asker alone, so the channels the asker may view and read
 *   in every server Scout shares with them (their membership fetched per server).
 * Permissions are computed as Discord does (owner and Administrator hold all; @everyone's and the
 * roles' bits; the channel's overwrites: @everyone's, the roles', the member's own). Threads, voice
 * chats and forum posts are not read.
 *
 * Bounds: at most MAX_CHANNELS channels per search (the most recently active first), the last
 * MAX_MESSAGES messages of each in pages of 100 (at most 60 history calls a search), each channel's
 * history kept CACHE_TTL_MS in a bounded LRU so the searches of one turn (and of a busy channel)
 * read Discord once. Calls go through a REST client of their own that never waits out a 429: the
 * rate limit is one clear step, never a stall. A channel Scout itself cannot read (Missing Access
 * 50001 / Missing Permissions 50013, known from its cached permissions or from Discord's answer) is
 * left out and named; when no channel can be read the search fails with that clear reason.
 */
import {
  ChannelType,
  type Client,
  DiscordAPIError,
  type Guild,
  type GuildBasedChannel,
  type Message,
  OverwriteType,
  PermissionFlagsBits,
  RateLimitError,
  REST,
  Routes,
} from 'discord.js';
import MiniSearch from 'minisearch';
import type { Logger } from '../../src/logger.js';
import { processTerm, tokenize } from '../../src/reader/passages.js';
import {
  type WorkspaceHit,
  type WorkspaceSearch,
  WorkspaceSearchError,
  type WorkspaceSearchOptions,
  type WorkspaceSearchResult,
} from '../../src/search/workspace-search.js';

/** Channels one search reads at most: each costs up to 10 history calls on a cold cache. */
export const MAX_CHANNELS = 6;
/** Messages read per channel (newest first); older history is not searched. */
export const MAX_MESSAGES = 1_000;
/** Discord's largest page for GET /channels/:id/messages. */
const PAGE_SIZE = 100;
/** How long a channel's history read is reused. */
export const CACHE_TTL_MS = 60_000;
/** Channels whose history is kept at most (the least recently used go first). */
const CACHE_CHANNELS = 64;
/** Servers a DM search checks the asker's membership in at most. */
export const MAX_GUILDS = 10;
/** Characters of one message indexed (the tool shows fewer). */
const MESSAGE_CHARS = 2_000;
/** One search gives up after this long (a slow Discord is a failed step, not a stall). */
const SEARCH_TIMEOUT_MS = 15_000;

const VIEW_AND_READ = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory;
const ALL = ~0n;
/** Discord's codes for "the bot may not read this channel". */
const NO_ACCESS_CODES = new Set([50001, 50013]);
const UNKNOWN_MEMBER = 10007;

/** A message as kept for search. */
interface KeptMessage {
  id: string;
  text: string;
  author: string;
  date: string;
}

interface RawMessage {
  id: string;
  content?: string;
  timestamp?: string;
  author?: { id: string; username?: string; global_name?: string | null; bot?: boolean };
  mentions?: { id: string; username?: string; global_name?: string | null }[];
  embeds?: {
    title?: string;
    description?: string;
    fields?: { name?: string; value?: string }[];
    footer?: { text?: string };
  }[];
  attachments?: { filename?: string }[];
}

type SearchableChannel = GuildBasedChannel & { lastMessageId: string | null };

/** A user's permission bits in a channel, as Discord computes them. */
export function permissionsIn(
  guild: Guild,
  channel: GuildBasedChannel,
  who: { userId?: string; roles: readonly string[] },
): bigint {
  if (who.userId && guild.ownerId === who.userId) return ALL;
  let bits = guild.roles.everyone.permissions.bitfield;
  for (const id of who.roles) bits |= guild.roles.cache.get(id)?.permissions.bitfield ?? 0n;
  if ((bits & PermissionFlagsBits.Administrator) !== 0n) return ALL;
  if (!('permissionOverwrites' in channel)) return bits;
  const overwrites = channel.permissionOverwrites.cache;
  const everyone = overwrites.get(guild.id);
  if (everyone) bits = (bits & ~everyone.deny.bitfield) | everyone.allow.bitfield;
  let allow = 0n;
  let deny = 0n;
  for (const id of who.roles) {
    const o = overwrites.get(id);
    if (o && o.type === OverwriteType.Role && id !== guild.id) {
      allow |= o.allow.bitfield;
      deny |= o.deny.bitfield;
    }
  }
  bits = (bits & ~deny) | allow;
  const own = who.userId ? overwrites.get(who.userId) : undefined;
  if (own && own.type === OverwriteType.Member) bits = (bits & ~own.deny.bitfield) | own.allow.bitfield;
  return bits;
}

const canRead = (bits: bigint) => (bits & VIEW_AND_READ) === VIEW_AND_READ;

function isSearchable(channel: GuildBasedChannel): channel is SearchableChannel {
  return channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement;
}

/** Snowflakes sort by time: the most recently active channel first, a silent one last. */
function byActivity(a: SearchableChannel, b: SearchableChannel): number {
  const x = BigInt(a.lastMessageId ?? 0);
  const y = BigInt(b.lastMessageId ?? 0);
  return x === y ? 0 : x > y ? -1 : 1;
}

/** Plain text of a message: its content (mentions named), embeds' text and files' names. */
export function messageText(raw: RawMessage, channelName: (id: string) => string | undefined): string {
  const names = new Map((raw.mentions ?? []).map((u) => [u.id, u.global_name ?? u.username ?? u.id]));
  const content = (raw.content ?? '')
    .replace(/<@!?(\d+)>/g, (_m, id: string) => `@${names.get(id) ?? 'someone'}`)
    .replace(/<#(\d+)>/g, (_m, id: string) => `#${channelName(id) ?? 'channel'}`)
    .replace(/<@&\d+>/g, '@role')
    .replace(/<a?:(\w+):\d+>/g, ':$1:');
  const parts = [content];
  for (const e of raw.embeds ?? []) {
    parts.push(e.title ?? '', e.description ?? '');
    for (const f of e.fields ?? []) parts.push(`${f.name ?? ''}: ${f.value ?? ''}`);
    parts.push(e.footer?.text ?? '');
  }
  for (const a of raw.attachments ?? []) if (a.filename) parts.push(`[file: ${a.filename}]`);
  const text = parts.filter((p) => p.trim() !== '').join(' — ');
  return text.length <= MESSAGE_CHARS ? text : `${text.slice(0, MESSAGE_CHARS - 1)}…`;
}

/** A bounded LRU of channel histories, each kept for CACHE_TTL_MS. */
class HistoryCache {
  private readonly entries = new Map<string, { at: number; messages: KeptMessage[] }>();
  constructor(private readonly now: () => number) {}

  get(channelId: string): KeptMessage[] | undefined {
    const entry = this.entries.get(channelId);
    if (!entry) return undefined;
    this.entries.delete(channelId);
    if (this.now() - entry.at > CACHE_TTL_MS) return undefined;
    this.entries.set(channelId, entry);
    return entry.messages;
  }

  set(channelId: string, messages: KeptMessage[]): void {
    this.entries.delete(channelId);
    if (this.entries.size >= CACHE_CHANNELS) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(channelId, { at: this.now(), messages });
  }
}

/** A channel Scout could not read, and why. */
class Unreadable extends Error {}

export interface DiscordSearchDeps {
  /** The current client (the surface may build a new one when an intent is refused). */
  client: () => Client;
  token: string;
  /** DISCORD_API_URL (tests' fake), or Discord's own. */
  apiUrl: string | undefined;
  logger: Logger;
  now?: () => number;
}

/** A candidate channel with the server it is in. */
interface Place {
  guild: Guild;
  channel: SearchableChannel;
}

/**
 * The search capability for Discord messages (WORKSPACE_SEARCH=on), one per message. The REST
 * client and the history cache are shared by every message of the surface.
 */
export function discordSearchFactory(deps: DiscordSearchDeps): (message: Message) => WorkspaceSearch {
  const rest = new REST({
    ...(deps.apiUrl ? { api: deps.apiUrl.replace(/\/+$/, '') } : {}),
    // A 429 (or a bucket known to be empty) throws at once instead of waiting.
    rejectOnRateLimit: () => true,
    retries: 0,
    timeout: 10_000,
  }).setToken(deps.token);
  const cache = new HistoryCache(deps.now ?? Date.now);

  /** The asker's roles in a server they share with Scout; undefined when not a member. */
  const memberRoles = async (guild: Guild, userId: string, signal: AbortSignal) => {
    try {
      const member = (await rest.get(Routes.guildMember(guild.id, userId), { signal })) as {
        roles?: string[];
      };
      return member.roles ?? [];
    } catch (err) {
      if (err instanceof DiscordAPIError && err.code === UNKNOWN_MEMBER) return undefined;
      throw err;
    }
  };

  /** The channels a search from `message` may read, and those Scout knows it cannot. */
  const placesFor = async (message: Message, signal: AbortSignal) => {
    const userId = message.author.id;
    const found: Place[] = [];
    const blocked: Place[] = [];
    const consider = (guild: Guild, roles: readonly string[], everyoneToo: boolean) => {
      const me = guild.members.me;
      for (const channel of guild.channels.cache.values()) {
        if (!isSearchable(channel)) continue;
        if (!canRead(permissionsIn(guild, channel, { userId, roles }))) continue;
        if (everyoneToo && !canRead(permissionsIn(guild, channel, { roles: [] }))) continue;
        const scout = me
          ? canRead(permissionsIn(guild, channel, { userId: me.id, roles: [...me.roles.cache.keys()] }))
          : true;
        (scout ? found : blocked).push({ guild, channel });
      }
    };
    if (message.inGuild()) {
      const roles = message.member ? [...message.member.roles.cache.keys()] : [];
      consider(message.guild, roles, true);
    } else {
      const guilds = [...deps.client().guilds.cache.values()].slice(0, MAX_GUILDS);
      for (const guild of guilds) {
        const roles = await memberRoles(guild, userId, signal);
        if (roles) consider(guild, roles, false);
      }
    }
    found.sort((a, b) => byActivity(a.channel, b.channel));
    return { found: found.slice(0, MAX_CHANNELS), blocked };
  };

  /** The channel's last MAX_MESSAGES messages (cached), Scout's own left out. */
  const history = async (place: Place, signal: AbortSignal): Promise<KeptMessage[]> => {
    const { channel, guild } = place;
    const cached = cache.get(channel.id);
    if (cached) return cached;
    const botId = deps.client().user?.id;
    const kept: KeptMessage[] = [];
    let before: string | undefined;
    for (let read = 0; read < MAX_MESSAGES; read += PAGE_SIZE) {
      const query = new URLSearchParams({ limit: String(PAGE_SIZE), ...(before ? { before } : {}) });
      let page: RawMessage[];
      try {
        page = (await rest.get(Routes.channelMessages(channel.id), { query, signal })) as RawMessage[];
      } catch (err) {
        if (err instanceof DiscordAPIError && NO_ACCESS_CODES.has(Number(err.code)))
          throw new Unreadable(`${err.message} (${err.code})`);
        throw err;
      }
      for (const raw of page) {
        if (raw.author?.id === botId) continue;
        const text = messageText(raw, (id) => guild.channels.cache.get(id)?.name);
        if (!text) continue;
        kept.push({
          id: raw.id,
          text,
          author: raw.author?.global_name ?? raw.author?.username ?? 'someone',
          date: raw.timestamp ?? '',
        });
      }
      before = page.at(-1)?.id;
      if (page.length < PAGE_SIZE || !before) break;
    }
    cache.set(channel.id, kept);
    return kept;
  };

  return (message) => {
    const direct = !message.inGuild();
    const serverName = message.guild?.name ?? 'this server';
    const places = direct
      ? 'the channels you can read in the servers you share with Scout (for you alone)'
      : `the channels everyone in ${serverName} can read`;
    return {
      platform: 'Discord',
      places,
      async search(query: string, options: WorkspaceSearchOptions): Promise<WorkspaceSearchResult> {
        const signal = AbortSignal.any([options.signal, AbortSignal.timeout(SEARCH_TIMEOUT_MS)]);
        try {
          const { found, blocked } = await placesFor(message, signal);
          const read: { place: Place; messages: KeptMessage[] }[] = [];
          const reads = await Promise.allSettled(found.map((place) => history(place, signal)));
          for (const [i, outcome] of reads.entries()) {
            const place = found[i]!;
            if (outcome.status === 'fulfilled') read.push({ place, messages: outcome.value });
            else if (outcome.reason instanceof Unreadable) blocked.push(place);
            else throw outcome.reason;
          }
          const guilds = new Set(
            [...read, ...blocked.map((place) => ({ place }))].map((r) => r.place.guild.id),
          );
          const label = (p: Place) =>
            guilds.size > 1 ? `${p.channel.name} (${p.guild.name})` : p.channel.name;
          if (read.length === 0 && blocked.length > 0) {
            const names = someNames(blocked, label);
            throw new WorkspaceSearchError(
              'no-permission',
              `Scout cannot read the message history of ${names} on Discord (Missing Access); a server admin can give Scout's role View Channel and Read Message History there`,
            );
          }
          const hits = rank(read, query, options, label);
          return { places: placesSaid(direct, serverName, read, blocked, label), hits };
        } catch (err) {
          if (err instanceof WorkspaceSearchError) throw err;
          if (options.signal.aborted) throw err;
          throw asSearchError(err, deps.logger);
        }
      },
    };
  };
}

/** Channel names for the step: at most 5, then how many more. */
function someNames(places: Place[], label: (p: Place) => string): string {
  const names = places.slice(0, 5).map((p) => `#${label(p)}`);
  if (places.length > 5) names.push(`${places.length - 5} more`);
  return names.join(', ');
}

/** The step's words for where was searched: the channels by name, and those Scout could not read. */
function placesSaid(
  direct: boolean,
  serverName: string,
  read: { place: Place }[],
  blocked: Place[],
  label: (p: Place) => string,
): string {
  const names = read.map((r) => `#${label(r.place)}`).join(', ') || 'none';
  const servers = [...new Set([...read.map((r) => r.place.guild.name), ...blocked.map((p) => p.guild.name)])];
  const where = servers.length > 0 ? servers.join(', ') : serverName;
  const recent = read.length > 0 ? `; the last ${MAX_MESSAGES.toLocaleString('en-US')} messages of each` : '';
  const skipped = blocked.length > 0 ? `; Scout cannot read ${someNames(blocked, label)}` : '';
  return direct
    ? `your channels in ${where} (for you alone: ${names}${recent}${skipped})`
    : `channels everyone in ${where} can read (${names}${recent}${skipped})`;
}

/** The messages that match `query` best (BM25), within the dates asked. */
function rank(
  read: { place: Place; messages: KeptMessage[] }[],
  query: string,
  options: WorkspaceSearchOptions,
  label: (p: Place) => string,
): WorkspaceHit[] {
  const after = options.after?.getTime();
  const before = options.before?.getTime();
  const docs: (KeptMessage & { place: Place })[] = [];
  for (const { place, messages } of read)
    for (const m of messages) {
      const at = Date.parse(m.date);
      if (after !== undefined && !(at >= after)) continue;
      if (before !== undefined && !(at <= before)) continue;
      docs.push({ ...m, place });
    }
  const index = new MiniSearch<{ id: number; text: string }>({
    fields: ['text'],
    tokenize,
    processTerm,
    searchOptions: { tokenize, processTerm, combineWith: 'OR', prefix: (term) => term.length > 4 },
  });
  index.addAll(docs.map((d, id) => ({ id, text: d.text })));
  return index
    .search(query)
    .slice(0, options.limit)
    .map((hit) => {
      const d = docs[hit.id as number]!;
      return {
        text: d.text,
        author: d.author,
        channel: label(d.place),
        date: d.date,
        permalink: `https://discord.com/channels/${d.place.guild.id}/${d.place.channel.id}/${d.id}`,
      };
    });
}

/** Discord's refusals as the tool's problems: the rate limit, a timeout, anything else. */
function asSearchError(err: unknown, logger: Logger): WorkspaceSearchError {
  if (err instanceof RateLimitError) {
    const seconds = Math.max(1, Math.ceil(err.retryAfter / 1000));
    return new WorkspaceSearchError(
      'rate-limited',
      `Discord's rate limit was reached (retry after ${seconds} s)`,
    );
  }
  if (err instanceof DiscordAPIError && NO_ACCESS_CODES.has(Number(err.code)))
    return new WorkspaceSearchError('no-permission', `Discord refused: ${err.message} (${err.code})`);
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
    return new WorkspaceSearchError('failed', 'Discord did not answer in time');
  logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'discord workspace search failed');
  return new WorkspaceSearchError('failed', err instanceof Error ? err.message : String(err));
}
