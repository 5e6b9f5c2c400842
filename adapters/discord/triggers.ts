/**
 * Which Discord messages Scout answers, and where. A mention (or a reply to one of Scout's
 * messages) in a guild channel starts a conversation: by default in a new thread on that message
 * (per-channel `replyInThread`), else in place. In a thread Scout opened, later messages need no
 * mention; in a thread someone else opened, Scout answers only messages that mention it or reply to
 * one of its messages — being mentioned once does not make the thread Scout's. DMs always answer.
 * Bots (Scout included), system messages and other message types are ignored.
 */
import { type Message, MessageType, type SendableChannels, ThreadAutoArchiveDuration } from 'discord.js';
import type { ChannelSettings } from '../../src/core/settings.js';
import type { Logger } from '../../src/logger.js';
import type { IncomingMessage } from '../../src/surface.js';
import { channelKey, conversationKey, type DiscordPlace, placeOf } from './ids.js';
import type { ThreadRegistry } from './thread-registry.js';

/** Discord's thread name limit. */
export const THREAD_NAME_MAX = 100;
/** Message types a person writes; joins, pins, thread starters and the like are not questions. */
const ANSWERED_TYPES = new Set<MessageType>([MessageType.Default, MessageType.Reply]);

export interface Trigger {
  incoming: IncomingMessage;
  /** Where the answer goes (the new thread, the thread, the channel or the DM). */
  channel: SendableChannels;
  /** The place of `channel`, for the surface's own bookkeeping. */
  place: DiscordPlace;
  /**
   * Earlier messages worth reading as context: the thread's (a mention inside a thread Scout did
   * not open), the reply chain (a reply), or none (every message before was answered already).
   */
  earlier: 'thread' | 'replies' | 'none';
}

export interface TriggerDeps {
  botId: string;
  registry: ThreadRegistry;
  getSettings(channelId: string): Promise<Pick<ChannelSettings, 'replyInThread'>>;
  /**
   * ALLOWED_CHANNELS, checked here because a mention opens a thread before the core sees the
   * message: a channel Scout may not answer in must not get an empty thread either.
   */
  isAllowed?(channelId: string): boolean;
  /** The core's check of the daily usage limits (a refused turn must not leave an empty thread). */
  overDailyLimit?(asker: { userId: string; channelId: string }): Promise<boolean>;
  logger: Logger;
  /** Called when a follow-up arrives with no content: the Message Content intent is probably off. */
  onEmptyContent?(message: Message): void;
  /** Runs the call that opens a thread under the bot's global pace (discord-surface.ts). */
  paceThread?<T>(open: () => Promise<T>): Promise<T>;
}

/** Removes Scout's user and role mentions and tidies the whitespace. */
export function stripMention(text: string, botId: string, botRoleIds: string[] = []): string {
  let out = text.replace(new RegExp(`<@!?${botId}>`, 'g'), ' ');
  for (const role of botRoleIds) out = out.replace(new RegExp(`<@&${role}>`, 'g'), ' ');
  return out.replace(/[ \t]+/g, ' ').trim();
}

/** A thread name from the question: its first line, 1–100 characters. */
export function threadName(question: string, fallback = 'Scout'): string {
  const line =
    question
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  const clean = line
    .replace(/<[@#][!&]?\d+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean === '') return fallback;
  return clean.length <= THREAD_NAME_MAX ? clean : `${clean.slice(0, THREAD_NAME_MAX - 1).trimEnd()}…`;
}

export async function resolveTrigger(message: Message, deps: TriggerDeps): Promise<Trigger | undefined> {
  if (message.author.bot || message.author.id === deps.botId || message.system || message.webhookId)
    return undefined;
  if (!ANSWERED_TYPES.has(message.type)) return undefined;
  const channel = message.channel;
  if (!channel.isSendable()) return undefined;
  if (deps.isAllowed && !deps.isAllowed(channelKey(placeOf(channel)))) return undefined;

  const botRoleIds = message.mentions.roles
    .filter((role) => role.tags?.botId === deps.botId)
    .map((r) => r.id);
  const repliesToScout = message.reference !== null && message.mentions.repliedUser?.id === deps.botId;
  const mentioned =
    message.mentions.users.has(deps.botId) ||
    new RegExp(`<@!?${deps.botId}>`).test(message.content) ||
    botRoleIds.length > 0 ||
    repliesToScout;
  const replyChain = message.reference?.messageId ? 'replies' : 'none';
  const text = stripMention(message.content, deps.botId, botRoleIds);
  const base = { messageId: message.id, userId: message.author.id, userName: message.author.username, text };

  if (!message.inGuild()) {
    const place = placeOf(channel);
    return {
      channel,
      place,
      earlier: replyChain,
      incoming: { ...base, channelId: channelKey(place), conversationId: conversationKey(place) },
    };
  }

  const channelName = 'name' in channel && typeof channel.name === 'string' ? channel.name : undefined;
  if (channel.isThread()) {
    const place = placeOf(channel);
    const owned = channel.ownerId === deps.botId || (await deps.registry.owns(channel.id));
    if (!owned && !mentioned) return undefined;
    if (owned && !mentioned && isContentless(message)) {
      deps.onEmptyContent?.(message);
      return undefined;
    }
    return {
      channel,
      place,
      earlier: owned ? replyChain : 'thread',
      incoming: {
        ...base,
        channelName,
        channelId: channelKey(place),
        conversationId: conversationKey(place),
      },
    };
  }

  if (!mentioned) return undefined;
  const place = placeOf(channel);
  const settings = await deps.getSettings(channelKey(place));
  // An asker over a daily limit gets a private message and no turn: a thread opened for it would
  // stay empty in the channel, named after their question.
  const asker = { userId: message.author.id, channelId: channelKey(place) };
  if (settings.replyInThread && !(await deps.overDailyLimit?.(asker))) {
    // An image-only mention names its thread after the file, not "Scout".
    const thread = await openThread(message, text || message.attachments.first()?.name || '', deps);
    if (thread) {
      await deps.registry.claim(thread.id);
      const threadPlace: DiscordPlace = { ...place, threadId: thread.id };
      return {
        channel: thread,
        place: threadPlace,
        earlier: replyChain,
        incoming: {
          ...base,
          channelName,
          channelId: channelKey(place),
          conversationId: conversationKey(threadPlace),
        },
      };
    }
  }
  return {
    channel,
    place,
    earlier: replyChain,
    incoming: { ...base, channelName, channelId: channelKey(place), conversationId: conversationKey(place) },
  };
}

/** Opens a thread on the message (or reuses the one it has); undefined when Discord refuses. */
async function openThread(
  message: Message<true>,
  question: string,
  deps: Pick<TriggerDeps, 'logger' | 'paceThread'>,
) {
  if (message.hasThread && message.thread) return message.thread;
  const open = () =>
    message.startThread({
      name: threadName(question),
      autoArchiveDuration: ThreadAutoArchiveDuration.OneDay,
    });
  try {
    return await (deps.paceThread ? deps.paceThread(open) : open());
  } catch (err) {
    // Missing "Create Public Threads" permission, or a channel type without threads: answer in place.
    deps.logger.warn({ err, channel: message.channelId }, 'could not open a thread; replying in place');
    return undefined;
  }
}

/** True when a message arrived with nothing readable: what a missing Message Content intent looks like. */
function isContentless(message: Message): boolean {
  return (
    message.content === '' &&
    message.attachments.size === 0 &&
    message.embeds.length === 0 &&
    message.stickers.size === 0
  );
}
