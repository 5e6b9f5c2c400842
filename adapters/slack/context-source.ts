/**
 * What Scout may read around a Slack message (src/context): the earlier replies of the thread it was
 * mentioned in (`conversations.replies`, needs the *:history scopes) and the files attached
 * (`url_private`, needs files:read). Files are fetched with the bot token only from Slack's file
 * host or the SLACK_API_URL host; a redirect anywhere else is not followed.
 */
import type { LRUCache } from 'lru-cache';
import { downloadAllowed, hostMatches, sameOrigin } from '../../src/context/download.js';
import type { AttachmentRef, MessageContextSource, ThreadMessage } from '../../src/context/types.js';
import type { Logger } from '../../src/logger.js';
import { type SlackClient, slackErrorCode } from './slack-client.js';

/** Slack's own file host (url_private / url_private_download). */
const SLACK_FILE_HOSTS = ['files.slack.com'] as const;
/** conversations.replies page size (Slack's maximum). */
const PAGE_SIZE = 1000;
/** A thread is scanned at most this many pages (10,000 replies); the newest are kept. */
const MAX_PAGES = 10;
/** Distinct authors looked up per turn; the rest are named by their id. */
const MAX_NAME_LOOKUPS = 25;

/** A Slack file object as events and conversations.replies carry it. */
export interface SlackFile {
  id?: string;
  name?: string;
  title?: string;
  mimetype?: string;
  size?: number;
  url_private?: string;
  url_private_download?: string;
}

interface SlackApiMessage {
  ts?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  text?: string;
  files?: SlackFile[];
}

export interface SlackContextOptions {
  client: SlackClient;
  token: string;
  /** SLACK_API_URL: its host may serve files too (a proxy, the tests' fake). */
  apiUrl: string | undefined;
  channel: string;
  /** The message's own ts and, when it was written inside a thread, the thread's. */
  ts: string;
  threadTs?: string;
  files: SlackFile[];
  /** Read the thread's earlier replies (a mention inside a thread Scout did not open). */
  readThread: boolean;
  names: LRUCache<string, string>;
  logger: Logger;
}

export function slackContextSource(options: SlackContextOptions): MessageContextSource {
  const urls = new Map<string, string>();
  const toRef = (file: SlackFile): AttachmentRef => {
    const id = file.id ?? `${urls.size}`;
    const url = file.url_private_download ?? file.url_private;
    if (url) urls.set(id, url);
    return {
      id,
      name: file.name ?? file.title ?? id,
      ...(file.mimetype ? { mimeType: file.mimetype } : {}),
      ...(file.size !== undefined ? { size: file.size } : {}),
    };
  };
  const threadTs = options.threadTs;
  const source: MessageContextSource = {
    messageId: options.ts,
    attachments: options.files.map(toRef),
    async download(attachment, limits) {
      const url = urls.get(attachment.id);
      if (!url) return { ok: false, reason: 'failed' };
      return downloadAllowed(url, {
        allowed: (u) => hostMatches(u, SLACK_FILE_HOSTS) || sameOrigin(u, options.apiUrl),
        headers: { Authorization: `Bearer ${options.token}` },
        maxBytes: limits.maxBytes,
        signal: limits.signal,
      });
    },
  };
  if (options.readThread && threadTs && threadTs !== options.ts) {
    source.earlier = async ({ after, limit, signal }) => {
      const found: SlackApiMessage[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES && !signal.aborted; page++) {
        const result = await options.client.conversations
          .replies({
            channel: options.channel,
            ts: threadTs,
            latest: options.ts,
            inclusive: false,
            limit: PAGE_SIZE,
            ...(after ? { oldest: after } : {}),
            ...(cursor ? { cursor } : {}),
          })
          .catch((err: unknown) => {
            // The thread's parent was deleted: there is nothing earlier to read, which is no error.
            if (slackErrorCode(err) === 'thread_not_found') return { messages: [], has_more: false };
            throw err;
          });
        for (const m of (result.messages ?? []) as SlackApiMessage[]) {
          // The parent comes back on every page and whatever `oldest` says: filter by ts ourselves.
          if (!m.ts || m.ts >= options.ts || (after && m.ts <= after)) continue;
          if (found.some((f) => f.ts === m.ts)) continue;
          found.push(m);
        }
        // Only the newest `limit` matter: drop the oldest as pages arrive.
        found.sort((a, b) => (a.ts! < b.ts! ? 1 : -1));
        found.length = Math.min(found.length, limit);
        cursor = ('response_metadata' in result && result.response_metadata?.next_cursor) || undefined;
        if (!result.has_more || !cursor) break;
      }
      const names = await authorNames(options, found);
      return found.map(
        (m): ThreadMessage => ({
          id: m.ts!,
          author: (m.user && names.get(m.user)) || m.user || 'someone',
          text: m.text ?? '',
          bot: Boolean(m.bot_id) || m.subtype === 'bot_message',
          ...(m.files?.length ? { attachments: m.files.map(toRef) } : {}),
        }),
      );
    };
  }
  return source;
}

/** Display names of the authors (users.info, cached across turns); a failed lookup keeps the id. */
async function authorNames(
  options: SlackContextOptions,
  messages: SlackApiMessage[],
): Promise<Map<string, string>> {
  const ids = [...new Set(messages.filter((m) => m.user && !m.bot_id).map((m) => m.user!))];
  const names = new Map<string, string>();
  let lookups = 0;
  for (const id of ids) {
    const cached = options.names.get(id);
    if (cached) {
      names.set(id, cached);
      continue;
    }
    if (lookups++ >= MAX_NAME_LOOKUPS) continue;
    try {
      const info = await options.client.users.info({ user: id });
      const name = info.user?.profile?.display_name || info.user?.real_name || info.user?.name;
      if (name) {
        names.set(id, name);
        options.names.set(id, name);
      }
    } catch (err) {
      options.logger.debug({ err: String(err), user: id }, 'users.info failed; naming the author by id');
    }
  }
  return names;
}
