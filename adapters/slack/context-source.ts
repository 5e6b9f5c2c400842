/**
 * What Scout may read around a Slack message (src/context): the earlier replies of the thread it was
 * mentioned in (`conversations.replies`, needs the *:history scopes) and the files attached
 * (`url_private`, needs files:read). Files are fetched with the bot token only from Slack's file
 * host or the SLACK_API_URL host; a redirect anywhere else is not followed.
 */
import { downloadAllowed, hostMatches, sameOrigin } from '../../src/context/download.js';
import type { AttachmentRef, MessageContextSource, ThreadMessage } from '../../src/context/types.js';
import type { Logger } from '../../src/logger.js';
import { type SlackClient, slackErrorCode } from './slack-client.js';
import type { SlackUserDirectory } from './user-directory.js';

/** Slack's own file host (url_private / url_private_download). */
const SLACK_FILE_HOSTS = ['files.slack.com'] as const;
/** conversations.replies page size (Slack's maximum; a server may send fewer). */
const PAGE_SIZE = 1000;
/** Calls of conversations.replies per turn at most (Tier 3); what was read by then is the newest. */
const MAX_CALLS = 12;
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
  /** Authors' display names (users.info, shared with the locale lookups and across turns). */
  users: SlackUserDirectory;
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
      const found = await newestReplies(options, threadTs, after, limit, signal);
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

/** A Slack ts ("1767224800.000123") as integer microseconds, exact within a Number. */
function micros(ts: string): number {
  const [seconds = '0', fraction = ''] = ts.split('.');
  return Number(seconds) * 1_000_000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}

function toTs(us: number): string {
  return `${Math.floor(us / 1_000_000)}.${String(us % 1_000_000).padStart(6, '0')}`;
}

/**
 * The newest `limit` messages of the thread older than the calling message (and newer than
 * `after`), NEWEST FIRST. conversations.replies pages oldest first, so paging from the start
 * would read the whole thread to reach its end (and a page cap kept the oldest: issue 27). Instead
 * it reads time windows backward from the calling message with `oldest`/`latest`: a window whose
 * answer is complete (no `has_more`) is taken whole and the next one ends where it began; a window
 * that holds more than a page is not paged through but narrowed, using how densely the page it
 * returned is packed. What has been read is always the newest stretch of the thread, so running out
 * of calls (MAX_CALLS) loses only older messages. Memory: one page plus `limit` messages.
 */
async function newestReplies(
  options: SlackContextOptions,
  threadTs: string,
  after: string | undefined,
  limit: number,
  signal: AbortSignal,
): Promise<SlackApiMessage[]> {
  const found: SlackApiMessage[] = [];
  let parent: SlackApiMessage | undefined;
  // Replies are newer than the parent; the parent itself is taken only when everything after it was read.
  const floor = micros(after ?? threadTs);
  let hi = micros(options.ts); // exclusive: the calling message and what came after are not read
  let lo = floor; // the first window is the whole range: most threads fit in one page
  for (let calls = 0; calls < MAX_CALLS && hi > floor && found.length < limit && !signal.aborted; calls++) {
    const result = await options.client.conversations
      .replies({
        channel: options.channel,
        ts: threadTs,
        oldest: toTs(lo),
        latest: toTs(hi),
        inclusive: true,
        limit: PAGE_SIZE,
      })
      .catch((err: unknown) => {
        // The thread's parent was deleted: there is nothing earlier to read, which is no error.
        if (slackErrorCode(err) === 'thread_not_found') return { messages: [], has_more: false };
        throw err;
      });
    const page: SlackApiMessage[] = [];
    // The parent comes back on every page whatever `oldest` says: bounds are checked here.
    for (const m of (result.messages ?? []) as SlackApiMessage[]) {
      if (!m.ts) continue;
      if (m.ts === threadTs) parent = m;
      else {
        const at = micros(m.ts);
        if (at >= lo && at < hi && at > floor) page.push(m);
      }
    }
    page.sort((a, b) => micros(a.ts!) - micros(b.ts!));
    const need = limit - found.length;
    const width = hi - lo;
    if (result.has_more && width > 1) {
      // More than a page in [lo, hi): these are its oldest. Aim the next window at about `need`
      // messages (at most most of a page) from how densely these are packed, and at least halve it.
      let next = Math.floor(width / 2);
      if (page.length > 1) {
        const span = Math.max(1, micros(page.at(-1)!.ts!) - micros(page[0]!.ts!));
        const target = Math.max(1, Math.min(need * 1.2, page.length * 0.8));
        next = Math.min(next, Math.ceil((target * span) / (page.length - 1)));
      }
      lo = Math.max(floor, hi - Math.max(1, next));
      continue;
    }
    // [lo, hi) is complete: its newest messages join, and the next window ends where this one began.
    for (let i = page.length - 1; i >= 0 && found.length < limit; i--) found.push(page[i]!);
    hi = lo;
    // Size the next window for what is still needed at this one's density, growing at most 8-fold.
    const rest = limit - found.length;
    const estimate = page.length > 0 ? Math.ceil((rest * 1.2 * width) / page.length) : width * 8;
    lo = Math.max(floor, hi - Math.max(1, Math.min(estimate, width * 8)));
  }
  if (hi <= floor && parent && found.length < limit && (!after || micros(threadTs) > micros(after)))
    found.push(parent);
  return found;
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
    if (!options.users.has(id) && lookups++ >= MAX_NAME_LOOKUPS) continue;
    const user = await options.users.lookup(id, (err) =>
      options.logger.debug({ err: String(err), user: id }, 'users.info failed; naming the author by id'),
    );
    if (user?.name) names.set(id, user.name);
  }
  return names;
}
