/**
 * The App Home panel's view: the user's channel picker, then the picked channel's settings — mode
 * (with each mode's one-line description), the search switch (disabled outside chat mode), the
 * function-call and answer models, temperature and max tokens, its instructions — and what an admin
 * sees under them (`/usage`). A payload builder: the panel's words are said here, in the user's
 * locale; home-tab.ts, which handles the panel's events, hands phrases on.
 */
import { DEFAULT_MODELS } from '../../src/llm/default-models.js';
import type { ChannelSettings } from '../../src/core/settings.js';
import type { UserText } from '../../src/i18n/phrase.js';
import { say } from '../../src/i18n/say.js';
import { t } from '../../src/i18n/translate.js';
import type { ModelConfig } from '../../src/llm/types.js';
import type { Locale } from '../../src/surface.js';
import { escapeMrkdwn, neutraliseMentions, truncate } from './markdown.js';
import type { Block } from './render-blocks.js';

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

const option = (text: string, value: string, description?: string) => ({
  text: { type: 'plain_text', text: truncate(text, MAX_OPTION_TEXT) },
  value,
  ...(description
    ? { description: { type: 'plain_text', text: truncate(description, MAX_OPTION_TEXT) } }
    : {}),
});
/** A model as the selectors and `/model` name it: `provider/model`. */
export const modelLabel = (m: ModelConfig) => `${m.provider}/${m.model}`;
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
  notice?: UserText,
  choices?: MemberChannel[],
): { type: 'home'; blocks: Block[] } {
  const blocks: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: t(locale, 'home.title') } },
    { type: 'context', elements: [{ type: 'mrkdwn', text: t(locale, 'home.intro') }] },
  ];
  // The notice is a command reply, which may quote what was typed: keep it inert like every reply.
  const said = notice === undefined ? '' : say(locale, notice);
  if (said) blocks.push(section(truncate(neutraliseMentions(said), 2900)));
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
  const answer = settings.answerModel ? modelLabel(settings.answerModel) : 'default';
  blocks.push({ type: 'divider' });
  blocks.push({
    ...section(`*${t(locale, 'home.tool-model')}*`),
    accessory: select(HOME_TOOL_MODEL, MODEL_CHOICES, modelLabel(tool)),
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

/** What a user the access lists refuse sees instead of the panel. */
export function refusedHomeView(locale: Locale): { type: 'home'; blocks: Block[] } {
  const blocks = [
    { type: 'header', text: { type: 'plain_text', text: t(locale, 'home.title') } },
    section(t(locale, 'error.user-not-allowed')),
  ];
  return { type: 'home', blocks };
}

/** `/usage` under an admin's settings, as text; nothing when it says nothing. */
export function usageBlocks(locale: Locale, usage: UserText): Block[] {
  const said = say(locale, usage);
  return said ? [{ type: 'divider' }, section(truncate(neutraliseMentions(said), 2900))] : [];
}
