/**
 * The search_workspace capability for one Slack message (WORKSPACE_SEARCH=on): the event's
 * action_token, and the kind of conversation the answer goes to — the event's `channel_type`, or
 * for an app_mention (which has none) conversations.info, remembered per channel. A channel whose
 * kind cannot be learnt is searched as a public one (public channels only).
 */
import type { App } from '@slack/bolt';
import type { Config } from '../../src/config/env.js';
import type { Logger } from '../../src/logger.js';
import type { WorkspaceSearch } from '../../src/search/workspace-search.js';
import type { SlackMessageEvent } from './triggers.js';
import type { SlackUserDirectory } from './user-directory.js';
import {
  type SlackChannelKind,
  channelKindOf,
  kindFromInfo,
  searchClient,
  slackWorkspaceSearch,
} from './workspace-search.js';

/** Channels whose kind is remembered at most (the oldest go first). */
const KNOWN_CHANNELS = 1_000;

/** The event fields search needs; `action_token` rides on message and app_mention events of AI apps. */
interface SearchEventFields {
  action_token?: string;
  assistant_thread?: { action_token?: string };
}

export function slackSearchFor(
  app: App,
  env: Config['env'],
  users: SlackUserDirectory,
  log: Logger,
): ((channel: string, event: SlackMessageEvent | undefined) => Promise<WorkspaceSearch>) | undefined {
  if (env.WORKSPACE_SEARCH !== 'on' || !env.SLACK_BOT_TOKEN) return undefined;
  const client = searchClient(env.SLACK_API_URL);
  const kinds = new Map<string, SlackChannelKind>();
  const kindOf = async (channel: string, event: SlackMessageEvent | undefined): Promise<SlackChannelKind> => {
    const told = channelKindOf(event?.channel_type);
    if (told !== 'unknown') return told;
    const known = kinds.get(channel);
    if (known) return known;
    try {
      const info = await app.client.conversations.info({ channel });
      const kind = kindFromInfo((info.channel ?? {}) as Parameters<typeof kindFromInfo>[0]);
      if (kinds.size >= KNOWN_CHANNELS) kinds.delete(kinds.keys().next().value!);
      kinds.set(channel, kind);
      return kind;
    } catch (err) {
      log.debug({ err: String(err), channel }, 'conversations.info failed: searching public channels only');
      return 'unknown';
    }
  };
  return async (channel, event) => {
    const fields = (event ?? {}) as SearchEventFields;
    const actionToken = fields.action_token ?? fields.assistant_thread?.action_token;
    return slackWorkspaceSearch({
      client,
      botToken: env.SLACK_BOT_TOKEN!,
      ...(actionToken ? { actionToken } : {}),
      ...(env.SLACK_SEARCH_USER_TOKEN ? { userToken: env.SLACK_SEARCH_USER_TOKEN } : {}),
      channel,
      kind: await kindOf(channel, event),
      users,
      logger: log,
    });
  };
}
