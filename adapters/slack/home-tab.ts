/**
 * The App Home settings panel: the user picks a channel, then sees and changes its settings — mode
 * (with each mode's one-line description), the search switch (disabled outside chat mode), the
 * function-call and answer models, temperature and max tokens. Every change goes through
 * `core.runCommand`, so validation and confirmations are the same as for slash commands. The view
 * and its words are home-view.ts's: this file handles the panel's events and hands phrases on.
 *
 * Only admins (ADMIN_USERS) may pick any channel. Everyone else picks among the channels they are a
 * member of (`users.conversations`, asked again on every change, so leaving a channel takes effect at
 * once): Slack's channel picker cannot be limited to the user's channels, and a crafted action payload
 * could name any channel anyway.
 */
import type { App } from '@slack/bolt';
import type Keyv from 'keyv';
import { phrase, type UserText } from '../../src/i18n/phrase.js';
import type { ModelConfig } from '../../src/llm/types.js';
import type { Logger } from '../../src/logger.js';
import type { Locale, ScoutCore } from '../../src/surface.js';
import {
  buildHomeView,
  HOME_ANSWER_MODEL,
  HOME_CHANNEL,
  HOME_MAX_TOKENS,
  HOME_MODE,
  HOME_SEARCH,
  HOME_TEMPERATURE,
  HOME_TOOL_MODEL,
  type MemberChannel,
  modelLabel,
  refusedHomeView,
  usageBlocks,
} from './home-view.js';
import { channelId } from './ids.js';
import type { SlackListeners } from './listener-router.js';
import type { Block } from './render-blocks.js';
import { slackErrorCode } from './slack-client.js';

/** The picked channel per user is remembered this long. */
const PICK_TTL_MS = 30 * 24 * 3600_000;
/** Pages of users.conversations read at most (1000 channels each). */
const MAX_CHANNEL_PAGES = 5;

export interface HomeDeps {
  core: ScoutCore;
  meta: Keyv;
  logger: Logger;
  localeOf: (userId: string) => Promise<Locale>;
  /** ADMIN_USERS: they may pick and change any channel. */
  admins: readonly string[];
  /** The access lists (ALLOWED_USERS, BLOCKED_USERS): a refused user sees only a note. */
  isAllowed?: (userId: string) => boolean;
  /**
   * `/usage` as text, shown to admins under the settings. Text only (sparkline and top lists): an
   * image in Home needs a public image URL or a file uploaded with files:write on every refresh.
   */
  usage?: (userId: string, locale: Locale) => Promise<UserText>;
}

/** `/model tool …` arguments that keep the parameters the user did not change. */
function toolArgs(
  m: ModelConfig,
  change: { spec?: string; temperature?: string; maxTokens?: string },
): string {
  const topP = m.topP !== undefined ? ` top_p=${m.topP}` : '';
  const maxTokens = change.maxTokens ?? (m.maxTokens === undefined ? undefined : String(m.maxTokens));
  // "default": no max_tokens, so the provider's own limit applies.
  const limit = maxTokens && maxTokens !== 'default' ? ` max_tokens=${maxTokens}` : '';
  return `tool ${change.spec ?? modelLabel(m)} temperature=${change.temperature ?? m.temperature}${limit}${topP}`;
}

export function registerHomeTab(
  app: App,
  listeners: SlackListeners,
  deps: HomeDeps,
): { publish: (team: string, userId: string, notice?: UserText) => Promise<void> } {
  const pickKey = (team: string, user: string) => `slack:home:${team}:${user}`;
  const isAdmin = (userId: string) => deps.admins.includes(userId);

  /**
   * The channels a non-admin may manage: those they are a member of, as Slack reports them now. A
   * failed lookup yields none (the panel then offers nothing rather than everything).
   */
  const memberChannels = async (userId: string): Promise<MemberChannel[]> => {
    const found: MemberChannel[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_CHANNEL_PAGES; page++) {
        const res = await app.client.users.conversations({
          user: userId,
          types: 'public_channel,private_channel',
          exclude_archived: true,
          limit: 1000,
          ...(cursor ? { cursor } : {}),
        });
        for (const c of res.channels ?? []) if (c.id) found.push({ id: c.id, name: c.name ?? c.id });
        cursor = res.response_metadata?.next_cursor || undefined;
        if (!cursor) break;
      }
    } catch (err) {
      deps.logger.warn({ err: slackErrorCode(err) ?? String(err) }, 'users.conversations failed');
      return [];
    }
    return found;
  };
  /** undefined for admins (any channel); else the user's channels. */
  const choicesFor = async (userId: string) => (isAdmin(userId) ? undefined : memberChannels(userId));
  const mayManage = (choices: MemberChannel[] | undefined, channel: string) =>
    !choices || choices.some((c) => c.id === channel);

  const send = async (userId: string, view: { type: 'home'; blocks: Block[] }) => {
    await app.client.views
      .publish({ user_id: userId, view: view as never })
      .catch((err) => deps.logger.warn({ err: slackErrorCode(err) ?? String(err) }, 'views.publish failed'));
  };
  const publish = async (team: string, userId: string, notice?: UserText) => {
    const locale = await deps.localeOf(userId);
    if (deps.isAllowed && !deps.isAllowed(userId)) return send(userId, refusedHomeView(locale));
    const choices = await choicesFor(userId);
    const picked = (await deps.meta.get(pickKey(team, userId))) as string | undefined;
    // A remembered pick of a channel the user has since left shows nothing of it.
    const channel = picked && mayManage(choices, picked) ? picked : undefined;
    const settings = channel ? await deps.core.getSettings(channelId(team, channel)) : undefined;
    const view = buildHomeView(locale, channel, settings, notice, choices);
    if (deps.usage && isAdmin(userId)) {
      const usage = await deps.usage(userId, locale).catch(() => undefined);
      if (usage) view.blocks.push(...usageBlocks(locale, usage));
    }
    await send(userId, view);
  };
  /** Refuses a pick or change of a channel the user is not in: a note on the panel, nothing applied. */
  const refuse = async (team: string, userId: string) => publish(team, userId, phrase('home.not-member'));

  listeners.event('app_home_opened', async ({ event, body }) => {
    if (event.tab !== 'home') return;
    await publish(body.team_id, event.user);
  });

  const run = async (team: string, userId: string, name: string, args: string) => {
    const channel = (await deps.meta.get(pickKey(team, userId))) as string | undefined;
    if (!channel) return publish(team, userId);
    if (!mayManage(await choicesFor(userId), channel)) return refuse(team, userId);
    const locale = (await deps.localeOf(userId)) ?? deps.core.locale;
    const reply = await deps.core.runCommand(name, args, {
      channelId: channelId(team, channel),
      userId,
      locale,
    });
    // Said by the view in the user's locale, the one the command ran in.
    await publish(team, userId, reply.text);
  };

  listeners.action(HOME_CHANNEL, async ({ ack, action, body }) => {
    await ack();
    // conversations_select (admins) or static_select of the user's channels (everyone else).
    const a = action as { selected_conversation?: string; selected_option?: { value: string } };
    const picked = a.selected_conversation ?? a.selected_option?.value;
    const team = body.team?.id ?? body.user.team_id ?? '';
    if (picked && !mayManage(await choicesFor(body.user.id), picked)) return refuse(team, body.user.id);
    if (picked) await deps.meta.set(pickKey(team, body.user.id), picked, PICK_TTL_MS);
    await publish(team, body.user.id);
  });

  const selected = (action: unknown) =>
    (action as { selected_option?: { value: string } }).selected_option?.value ?? '';
  const settingsOf = async (team: string, userId: string) => {
    const channel = (await deps.meta.get(pickKey(team, userId))) as string | undefined;
    return channel ? deps.core.getSettings(channelId(team, channel)) : undefined;
  };
  const handlers: Record<string, (value: string, team: string, user: string) => Promise<void>> = {
    [HOME_MODE]: (v, team, user) => run(team, user, 'mode', v),
    [HOME_SEARCH]: (v, team, user) => run(team, user, 'search', v),
    [HOME_ANSWER_MODEL]: (v, team, user) => run(team, user, 'model', `answer ${v}`),
    [HOME_TOOL_MODEL]: async (v, team, user) => {
      const s = await settingsOf(team, user);
      if (s) await run(team, user, 'model', toolArgs(s.toolModel, { spec: v }));
    },
    [HOME_TEMPERATURE]: async (v, team, user) => {
      const s = await settingsOf(team, user);
      if (s) await run(team, user, 'model', toolArgs(s.toolModel, { temperature: v }));
    },
    [HOME_MAX_TOKENS]: async (v, team, user) => {
      const s = await settingsOf(team, user);
      if (s) await run(team, user, 'model', toolArgs(s.toolModel, { maxTokens: v }));
    },
  };
  for (const [actionId, handle] of Object.entries(handlers)) {
    listeners.action(actionId, async ({ ack, action, body }) => {
      await ack();
      await handle(selected(action), body.team?.id ?? body.user.team_id ?? '', body.user.id);
    });
  }
  return { publish };
}
