/**
 * The App Home settings panel: the user picks a channel, then sees and changes its settings — mode
 * (with each mode's one-line description), the search switch (disabled outside chat mode), the
 * function-call and answer models, temperature and max tokens. Every change goes through
 * `core.runCommand`, so validation and confirmations are the same as for slash commands.
 *
 * Only admins (ADMIN_USERS) may pick any channel. Everyone else picks among the channels they are a
 * member of (`users.conversations`, asked again on every change, so leaving a channel takes effect at
 * once): Slack's channel picker cannot be limited to the user's channels, and a crafted action payload
 * could name any channel anyway.
 */
import { DEFAULT_MODELS } from '../../src/llm/default-models.js';
import type { App } from '@slack/bolt';
import type Keyv from 'keyv';
import type { ChannelSettings } from '../../src/core/settings.js';
import type { ModelConfig } from '../../src/llm/types.js';
import type { Logger } from '../../src/logger.js';
import type { Locale, ScoutCore } from '../../src/surface.js';
import { channelId } from './ids.js';
import { escapeMrkdwn, neutraliseMentions, truncate } from './markdown.js';
import type { Block } from './render-blocks.js';
import { slackErrorCode } from './slack-client.js';
import { say } from '../../src/i18n/say.js';
import { t } from '../../src/i18n/translate.js';

export const HOME_CHANNEL = 'scout_home_channel';
export const HOME_MODE = 'scout_home_mode';
export const HOME_SEARCH = 'scout_home_search';
export const HOME_TOOL_MODEL = 'scout_home_tool_model';
export const HOME_ANSWER_MODEL = 'scout_home_answer_model';
export const HOME_TEMPERATURE = 'scout_home_temperature';
export const HOME_MAX_TOKENS = 'scout_home_max_tokens';

/** Models offered in the selectors (the channel's current ones are always added). */
const MODEL_CHOICES = [
  'deepseek/deepseek-chat',
  'deepseek/deepseek-reasoner',
  'openai/gpt-4.1-mini',
  'openai/gpt-4.1',
  `anthropic/${DEFAULT_MODELS.anthropic}`,
  'gemini/gemini-2.5-flash',
];
const TEMPERATURES = ['0', '0.3', '0.5', '0.7', '1', '1.5'];
const MAX_TOKENS = ['500', '1000', '2000', '4000', '8000'];
/** Option texts are capped at 75 characters. */
const MAX_OPTION_TEXT = 75;
/** The picked channel per user is remembered this long. */
const PICK_TTL_MS = 30 * 24 * 3600_000;

const option = (text: string, value: string, description?: string) => ({
  text: { type: 'plain_text', text: truncate(text, MAX_OPTION_TEXT) },
  value,
  ...(description
    ? { description: { type: 'plain_text', text: truncate(description, MAX_OPTION_TEXT) } }
    : {}),
});
const label = (m: ModelConfig) => `${m.provider}/${m.model}`;
const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });

function select(actionId: string, values: string[], current: string, texts?: Record<string, string>): Block {
  const all = values.includes(current) ? values : [current, ...values];
  const options = all.map((v) => option(texts?.[v] ?? v, v));
  return {
    type: 'static_select',
    action_id: actionId,
    options,
    initial_option: options[all.indexOf(current)],
  };
}

/** Slack caps a static select at 100 options. */
const MAX_SELECT_OPTIONS = 100;
/** Pages of users.conversations read at most (1000 channels each). */
const MAX_CHANNEL_PAGES = 5;

export interface MemberChannel {
  id: string;
  name: string;
}

/** The channel picker: any conversation for admins, else the user's own channels (`choices`). */
function channelPicker(locale: Locale, channel: string | undefined, choices?: MemberChannel[]): Block {
  const placeholder = { type: 'plain_text', text: t(locale, 'home.pick-placeholder') };
  if (!choices)
    return {
      type: 'conversations_select',
      action_id: HOME_CHANNEL,
      placeholder,
      ...(channel ? { initial_conversation: channel } : {}),
    };
  const options = choices.slice(0, MAX_SELECT_OPTIONS).map((c) => option(`#${c.name}`, c.id));
  const initial = options.find((o) => o.value === channel);
  return {
    type: 'static_select',
    action_id: HOME_CHANNEL,
    placeholder,
    options,
    ...(initial ? { initial_option: initial } : {}),
  };
}

/**
 * The Home view for a user; `channel` is the picked channel (undefined before the first pick);
 * `choices`, when given, are the only channels the user may pick (not an admin).
 */
export function buildHomeView(
  locale: Locale,
  channel: string | undefined,
  settings: ChannelSettings | undefined,
  notice?: string,
  choices?: MemberChannel[],
): { type: 'home'; blocks: Block[] } {
  const blocks: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: t(locale, 'home.title') } },
    { type: 'context', elements: [{ type: 'mrkdwn', text: t(locale, 'home.intro') }] },
  ];
  // The notice is a command reply, which may quote what was typed: keep it inert like every reply.
  if (notice) blocks.push(section(truncate(neutraliseMentions(notice), 2900)));
  if (choices?.length === 0) {
    // A static select needs at least one option: say why there is nothing to pick instead.
    blocks.push(section(t(locale, 'home.no-member-channels')));
    return { type: 'home', blocks };
  }
  blocks.push({ type: 'actions', elements: [channelPicker(locale, channel, choices)] });
  if (!channel || !settings) {
    blocks.push(section(t(locale, 'home.no-channel')));
    return { type: 'home', blocks };
  }
  const modes = [
    option(t(locale, 'mode.chat.name'), 'chat', t(locale, 'mode.chat.description')),
    option(t(locale, 'mode.agent.name'), 'agent', t(locale, 'mode.agent.description')),
    option(t(locale, 'mode.plan.name'), 'plan', t(locale, 'mode.plan.description')),
  ];
  blocks.push({ type: 'divider' }, section(`*${t(locale, 'home.mode')}*`));
  blocks.push({
    type: 'actions',
    elements: [
      {
        type: 'radio_buttons',
        action_id: HOME_MODE,
        options: modes,
        initial_option: modes.find((o) => o.value === settings.mode),
      },
    ],
  });
  blocks.push(section(`*${t(locale, 'home.search')}*`));
  if (settings.mode === 'chat') {
    const onOff = [option(t(locale, 'choice.on'), 'on'), option(t(locale, 'choice.off'), 'off')];
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'radio_buttons',
          action_id: HOME_SEARCH,
          options: onOff,
          initial_option: onOff[settings.search ? 0 : 1],
        },
      ],
    });
  } else {
    // Slack has no disabled inputs: show the switch's state as text with the reason.
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: t(locale, 'home.search-not-here', {
            state: t(locale, 'choice.off'),
            why: t(locale, 'search.agent-note'),
          }),
        },
      ],
    });
  }
  const tool = settings.toolModel;
  const answer = settings.answerModel ? label(settings.answerModel) : 'default';
  blocks.push({ type: 'divider' });
  blocks.push({
    ...section(`*${t(locale, 'home.tool-model')}*`),
    accessory: select(HOME_TOOL_MODEL, MODEL_CHOICES, label(tool)),
  });
  blocks.push({
    ...section(`*${t(locale, 'home.answer-model')}*`),
    accessory: select(HOME_ANSWER_MODEL, ['default', ...MODEL_CHOICES], answer, {
      default: t(locale, 'model.same'),
    }),
  });
  blocks.push({
    ...section(`*${t(locale, 'home.temperature')}*`),
    accessory: select(HOME_TEMPERATURE, TEMPERATURES, String(tool.temperature)),
  });
  blocks.push({
    ...section(`*${t(locale, 'home.max-tokens')}*`),
    accessory: select(HOME_MAX_TOKENS, ['default', ...MAX_TOKENS], String(tool.maxTokens ?? 'default'), {
      default: t(locale, 'home.max-tokens-default'),
    }),
  });
  blocks.push({ type: 'divider' }, instructionsSection(locale, settings.instructions));
  return { type: 'home', blocks };
}

/**
 * The channel's own `/instructions`, read-only (they are set by command, where the reply says if they
 * were cut): escaped and defused, since anyone who can see the panel sees them.
 */
function instructionsSection(locale: Locale, instructions: string | undefined): Block {
  const body = instructions
    ? escapeMrkdwn(neutraliseMentions(instructions))
    : `_${t(locale, 'home.instructions-none')}_`;
  return section(truncate(`*${t(locale, 'home.instructions')}*\n${body}`, 2900));
}

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
  usage?: (userId: string, locale: Locale) => Promise<string>;
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
  return `tool ${change.spec ?? label(m)} temperature=${change.temperature ?? m.temperature}${limit}${topP}`;
}

export function registerHomeTab(
  app: App,
  deps: HomeDeps,
): { publish: (team: string, userId: string, notice?: string) => Promise<void> } {
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
  const publish = async (team: string, userId: string, notice?: string) => {
    const locale = await deps.localeOf(userId);
    if (deps.isAllowed && !deps.isAllowed(userId)) {
      const blocks = [
        { type: 'header', text: { type: 'plain_text', text: t(locale, 'home.title') } },
        section(t(locale, 'error.user-not-allowed')),
      ];
      return send(userId, { type: 'home', blocks });
    }
    const choices = await choicesFor(userId);
    const picked = (await deps.meta.get(pickKey(team, userId))) as string | undefined;
    // A remembered pick of a channel the user has since left shows nothing of it.
    const channel = picked && mayManage(choices, picked) ? picked : undefined;
    const settings = channel ? await deps.core.getSettings(channelId(team, channel)) : undefined;
    const view = buildHomeView(locale, channel, settings, notice, choices);
    if (deps.usage && isAdmin(userId)) {
      const usage = await deps.usage(userId, locale).catch(() => undefined);
      if (usage) view.blocks.push({ type: 'divider' }, section(truncate(neutraliseMentions(usage), 2900)));
    }
    await send(userId, view);
  };
  /** Refuses a pick or change of a channel the user is not in: a note on the panel, nothing applied. */
  const refuse = async (team: string, userId: string) =>
    publish(team, userId, t(await deps.localeOf(userId), 'home.not-member'));

  app.event('app_home_opened', async ({ event, body }) => {
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
    await publish(team, userId, say(locale, reply.text));
  };

  app.action(HOME_CHANNEL, async ({ ack, action, body }) => {
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
    app.action(actionId, async ({ ack, action, body }) => {
      await ack();
      await handle(selected(action), body.team?.id ?? body.user.team_id ?? '', body.user.id);
    });
  }
  return { publish };
}
