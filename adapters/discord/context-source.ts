/**
 * What Scout may read around a Discord message (src/context): the earlier messages of a thread it
 * was mentioned in, or the reply chain above a message (as llmcord does), and the attachments.
 * Attachments are fetched only from Discord's CDN hosts or the DISCORD_API_URL host, with no
 * credentials (CDN links are signed), and never through a redirect elsewhere.
 */
import type { Message } from 'discord.js';
import { downloadAllowed, hostMatches, sameOrigin } from '../../src/context/download.js';
import type { AttachmentRef, MessageContextSource, ThreadMessage } from '../../src/context/types.js';
import type { Logger } from '../../src/logger.js';

const DISCORD_CDN_HOSTS = ['cdn.discordapp.com', 'media.discordapp.net'] as const;
/** Discord's page size for GET /channels/:id/messages. */
const PAGE_SIZE = 100;
/** A reply chain is followed at most this many hops (llmcord's default is 25). */
const MAX_REPLY_HOPS = 25;

export interface DiscordContextOptions {
  message: Message;
  earlier: 'thread' | 'replies' | 'none';
  /** DISCORD_API_URL: its host may serve attachments too (a proxy, the tests' fake). */
  apiUrl: string | undefined;
  logger: Logger;
}

/** Snowflakes sort by time; compare them as numbers. */
const older = (a: string, b: string) => BigInt(a) < BigInt(b);

export function discordContextSource(options: DiscordContextOptions): MessageContextSource {
  const { message } = options;
  const urls = new Map<string, string>();
  const toRefs = (m: Message): AttachmentRef[] =>
    [...m.attachments.values()].map((a) => {
      urls.set(a.id, a.url);
      return {
        id: a.id,
        name: a.name,
        ...(a.contentType ? { mimeType: a.contentType } : {}),
        size: a.size,
      };
    });
  const toThreadMessage = (m: Message): ThreadMessage => ({
    id: m.id,
    author: m.member?.displayName ?? m.author.globalName ?? m.author.username,
    text: m.content,
    bot: m.author.bot || Boolean(m.webhookId),
    ...(m.attachments.size > 0 ? { attachments: toRefs(m) } : {}),
  });
  const source: MessageContextSource = {
    messageId: message.id,
    attachments: toRefs(message),
    download(attachment, limits) {
      const url = urls.get(attachment.id);
      if (!url) return Promise.resolve({ ok: false, reason: 'failed' });
      return downloadAllowed(url, {
        allowed: (u) => hostMatches(u, DISCORD_CDN_HOSTS) || sameOrigin(u, options.apiUrl),
        maxBytes: limits.maxBytes,
        signal: limits.signal,
      });
    },
  };
  if (options.earlier === 'thread') {
    source.earlier = async ({ after, limit, signal }) => {
      const found: Message[] = [];
      let before = message.id;
      while (found.length < limit && !signal.aborted) {
        const page = await message.channel.messages.fetch({ before, limit: PAGE_SIZE, cache: false });
        const sorted = [...page.values()].sort((a, b) => (older(a.id, b.id) ? 1 : -1));
        for (const m of sorted) if (!after || older(after, m.id)) found.push(m);
        const oldest = sorted.at(-1);
        if (page.size < PAGE_SIZE || !oldest || (after && !older(after, oldest.id))) break;
        before = oldest.id;
      }
      // A thread opened on a message starts with that message, which lives in the parent channel.
      if (found.length < limit && message.channel.isThread()) {
        const starter = await message.channel.fetchStarterMessage().catch(() => null);
        if (starter && (!after || older(after, starter.id))) found.push(starter);
      }
      return found.slice(0, limit).map(toThreadMessage);
    };
  } else if (options.earlier === 'replies') {
    source.earlier = async ({ after, limit, signal }) => {
      const chain: Message[] = [];
      let current: Message = message;
      for (let hop = 0; hop < Math.min(limit, MAX_REPLY_HOPS) && !signal.aborted; hop++) {
        const id = current.reference?.messageId;
        if (!id || (after && !older(after, id))) break;
        try {
          current = await current.fetchReference();
        } catch (err) {
          // A deleted message or one in a channel Scout cannot read ends the chain.
          options.logger.debug(
            { err: String(err), message: id },
            'reply chain ends at an unreadable message',
          );
          break;
        }
        chain.push(current);
      }
      return chain.map(toThreadMessage);
    };
  }
  return source;
}
