/**
 * search_workspace on Slack (issue 59): the Real-time Search API, `assistant.search.context`, called
 * with the bot token and the event's `action_token`, so Slack searches as the asker and returns only
 * what they may see. Which places it may reach depends on who reads the answer:
 * - a DM with Scout (the assistant pane is one): the answer is for the asker alone, so public
 *   channels, private channels, group DMs and DMs;
 * - a private channel or a group DM: public channels, and that same conversation (its readers are
 *   the ones who can see it): a second call for its kind, keeping only its own messages;
 * - a public channel, or anywhere Scout could not tell: public channels only.
 * Without an action_token (a slash command) an operator's SLACK_SEARCH_USER_TOKEN may stand in; it
 * searches as its own user, so only public channels. Calls go through a client of their own that
 * never waits out a 429 (Slack's limit for the method is about 10 a minute for most teams): the
 * rate limit is a clear step, never a stall. Calls per message are bounded.
 */
import { webApi } from '@slack/bolt';
import type { Logger } from '../../src/logger.js';
import {
  type WorkspaceHit,
  type WorkspaceSearch,
  WorkspaceSearchError,
  type WorkspaceSearchResult,
} from '../../src/search/workspace-search.js';
import { slackErrorCode } from './slack-client.js';
import type { SlackUserDirectory } from './user-directory.js';

/** Slack's largest page for the method. */
const PAGE_LIMIT = 20;
/** Calls of assistant.search.context per message (per turn) at most. */
export const MAX_SEARCH_CALLS = 6;
/** Pages one search reads at most. */
const MAX_PAGES = 2;
/** Author names looked up per search; the rest are named by id. */
const MAX_NAME_LOOKUPS = 10;
const SEARCH_TIMEOUT_MS = 10_000;

/** The conversation a message came from, as far as the adapter knows. */
export type SlackChannelKind = 'public' | 'private' | 'mpim' | 'im' | 'unknown';

/** Slack's message-event `channel_type` (app_mention events have none). */
export function channelKindOf(channelType: string | undefined): SlackChannelKind {
  switch (channelType) {
    case 'channel':
      return 'public';
    case 'group':
      return 'private';
    case 'mpim':
      return 'mpim';
    case 'im':
    case 'app_home':
      return 'im';
    default:
      return 'unknown';
  }
}

/** conversations.info's answer as a kind; anything unclear is 'unknown' (public channels only). */
export function kindFromInfo(channel: {
  is_im?: boolean;
  is_mpim?: boolean;
  is_private?: boolean;
  is_channel?: boolean;
  is_group?: boolean;
}): SlackChannelKind {
  if (channel.is_im) return 'im';
  if (channel.is_mpim) return 'mpim';
  if (channel.is_private || channel.is_group) return 'private';
  if (channel.is_channel) return 'public';
  return 'unknown';
}

interface SearchMessage {
  author_user_id?: string;
  author_name?: string;
  channel_id?: string;
  channel_name?: string;
  message_ts?: string;
  content?: string;
  is_author_bot?: boolean;
  permalink?: string;
}

interface SearchFile {
  title?: string;
  name?: string;
  content?: string;
  snippet?: string;
  permalink?: string;
  author_user_id?: string;
  author_name?: string;
  channel_id?: string;
  channel_name?: string;
  date_created?: number;
  created?: number;
}

interface SearchAnswer {
  results?: { messages?: SearchMessage[]; files?: SearchFile[] };
  response_metadata?: { next_cursor?: string };
}

/** One Web API client for every search: no retries, a 429 rejected at once. */
export function searchClient(apiUrl: string | undefined): webApi.WebClient {
  return new webApi.WebClient(undefined, {
    ...(apiUrl ? { slackApiUrl: apiUrl } : {}),
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    timeout: SEARCH_TIMEOUT_MS,
  });
}

export interface SlackWorkspaceSearchOptions {
  client: webApi.WebClient;
  botToken: string;
  /** The event's action_token: search as the asker. */
  actionToken?: string;
  /** SLACK_SEARCH_USER_TOKEN, for a message without an action_token (public channels only). */
  userToken?: string;
  /** The conversation the answer goes to. */
  channel: string;
  /** Its kind (the event's channel_type, or conversations.info); decides the places searched. */
  kind: SlackChannelKind;
  users: SlackUserDirectory;
  logger: Logger;
}

type Scope = { types: string; only?: string };

/** The places a search from this conversation may reach, and how to say them. */
function placesFor(
  kind: SlackChannelKind,
  channel: string,
  asAsker: boolean,
): { scopes: Scope[]; places: string } {
  if (!asAsker) return { scopes: [{ types: 'public_channel' }], places: 'public channels' };
  switch (kind) {
    case 'im':
      return {
        scopes: [{ types: 'public_channel,private_channel,mpim,im' }],
        places:
          'public channels and the private channels, group DMs and DMs you are in (this answer is for you alone)',
      };
    case 'private':
      return {
        scopes: [{ types: 'public_channel' }, { types: 'private_channel', only: channel }],
        places: 'public channels and this private channel',
      };
    case 'mpim':
      return {
        scopes: [{ types: 'public_channel' }, { types: 'mpim', only: channel }],
        places: 'public channels and this group DM',
      };
    default:
      return { scopes: [{ types: 'public_channel' }], places: 'public channels' };
  }
}

/** A Slack ts ("1767224800.000123") as an ISO date-time. */
function tsToIso(ts: string | number | undefined): string {
  const seconds = Number(ts);
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000).toISOString() : '';
}

export function slackWorkspaceSearch(options: SlackWorkspaceSearchOptions): WorkspaceSearch {
  const asAsker = Boolean(options.actionToken);
  const token = asAsker ? options.botToken : options.userToken;
  const { scopes, places } = placesFor(options.kind, options.channel, asAsker);
  let calls = 0;
  const base = { platform: 'Slack', places };
  if (!token) {
    return {
      ...base,
      unavailable: {
        problem: 'no-token',
        reason:
          'Slack sent no action token with it (slash commands carry none), and no SLACK_SEARCH_USER_TOKEN is set',
      },
      search: () => Promise.reject(new WorkspaceSearchError('no-token', 'no action token')),
    };
  }

  const call = async (args: Record<string, unknown>): Promise<SearchAnswer> => {
    if (calls >= MAX_SEARCH_CALLS)
      throw new WorkspaceSearchError(
        'rate-limited',
        `at most ${MAX_SEARCH_CALLS} workspace searches per answer`,
      );
    calls += 1;
    try {
      return (await options.client.apiCall('assistant.search.context', { token, ...args })) as SearchAnswer;
    } catch (err) {
      throw searchError(err);
    }
  };

  const names = async (messages: SearchMessage[]) => {
    const out = new Map<string, string>();
    let lookups = 0;
    for (const id of new Set(
      messages.filter((m) => !m.author_name && m.author_user_id).map((m) => m.author_user_id!),
    )) {
      if (!options.users.has(id) && lookups++ >= MAX_NAME_LOOKUPS) continue;
      const user = await options.users.lookup(id, (err) =>
        options.logger.debug({ err: String(err), user: id }, 'users.info failed; naming the author by id'),
      );
      if (user?.name) out.set(id, user.name);
    }
    return out;
  };

  return {
    ...base,
    async search(query, { limit, signal, after, before }): Promise<WorkspaceSearchResult> {
      const messages: SearchMessage[] = [];
      const files: SearchFile[] = [];
      for (const scope of scopes) {
        let cursor: string | undefined;
        for (let page = 0; page < MAX_PAGES && !signal.aborted; page++) {
          const answer = await call({
            query,
            ...(asAsker ? { action_token: options.actionToken } : {}),
            channel_types: scope.types,
            content_types: 'messages,files',
            limit: PAGE_LIMIT,
            ...(scope.only ? { context_channel_id: scope.only } : {}),
            ...(after ? { after: Math.floor(after.getTime() / 1000) } : {}),
            ...(before ? { before: Math.floor(before.getTime() / 1000) } : {}),
            ...(cursor ? { cursor } : {}),
          });
          const keep = (channelId: string | undefined) => !scope.only || channelId === scope.only;
          messages.push(...(answer.results?.messages ?? []).filter((m) => keep(m.channel_id)));
          files.push(...(answer.results?.files ?? []).filter((f) => keep(f.channel_id)));
          cursor = answer.response_metadata?.next_cursor || undefined;
          if (!cursor || messages.length + files.length >= limit) break;
        }
      }
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
      const authors = await names(messages);
      const hits: WorkspaceHit[] = [];
      for (const m of messages) {
        if (!m.permalink || !m.content) continue;
        hits.push({
          text: m.content,
          author:
            m.author_name ||
            (m.author_user_id && authors.get(m.author_user_id)) ||
            m.author_user_id ||
            'someone',
          channel: m.channel_name || m.channel_id || 'Slack',
          date: tsToIso(m.message_ts),
          permalink: m.permalink,
        });
      }
      for (const f of files) {
        if (!f.permalink) continue;
        hits.push({
          text: [f.title ?? f.name, f.content ?? f.snippet].filter(Boolean).join(': ') || 'a file',
          author: f.author_name || f.author_user_id || 'someone',
          channel: f.channel_name || f.channel_id || 'files',
          date: tsToIso(f.date_created ?? f.created),
          permalink: f.permalink,
        });
      }
      return { places, hits: hits.slice(0, limit) };
    },
  };
}

/** Slack's refusals as the problems the tool says once; anything else is a plain failure. */
function searchError(err: unknown): WorkspaceSearchError {
  const e = (typeof err === 'object' && err !== null ? err : {}) as { code?: unknown; retryAfter?: unknown };
  if (e.code === 'slack_webapi_rate_limited_error' || slackErrorCode(err) === 'ratelimited') {
    const wait = typeof e.retryAfter === 'number' ? ` (Slack asks to wait ${e.retryAfter} s)` : '';
    return new WorkspaceSearchError(
      'rate-limited',
      `Slack's rate limit for workspace search was reached${wait}`,
    );
  }
  const code = slackErrorCode(err);
  const needed = (err as { data?: { needed?: unknown } }).data?.needed;
  switch (code) {
    case 'missing_scope':
      return new WorkspaceSearchError(
        'missing-scope',
        `the Slack app lacks the scope ${typeof needed === 'string' ? needed : 'search:read.*'} (add it to the manifest and reinstall the app)`,
      );
    case 'invalid_action_token':
    case 'expired_action_token':
    case 'not_allowed_token_type':
    case 'invalid_auth':
      return new WorkspaceSearchError('no-token', `Slack refused the token to search as you (${code})`);
    case 'access_denied':
    case 'no_permission':
    case 'feature_not_enabled':
    case 'team_access_not_granted':
    case 'user_consent_required':
      return new WorkspaceSearchError('no-permission', `Slack does not allow this search (${code})`);
    default:
      return new WorkspaceSearchError(
        'failed',
        code ? `Slack answered ${code}` : String((err as Error)?.message ?? err),
      );
  }
}
