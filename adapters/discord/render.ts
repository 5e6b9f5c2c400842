/**
 * Discord payloads for a turn: the steps message (text + Show/Hide details and Stop buttons), the
 * answer parts (link previews suppressed), feedback and plan buttons, and the short notes Scout
 * answers outside a turn (a button's private reply, a store failure). This file and turn-sink.ts are
 * where Discord's text is said in a locale: the rest of the adapter hands phrases on. Every payload carries
 * `allowedMentions: { parse: [] }`: edits re-parse mentions unless it is sent again, and model output
 * must never ping `@everyone`, a role or a user.
 */
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  type InteractionReplyOptions,
  type MessageActionRowComponentBuilder,
  type MessageReplyOptions,
  type MessageCreateOptions,
  type MessageEditOptions,
  MessageFlags,
} from 'discord.js';
import type { AnswerControls } from '../../src/render/message-writer.js';
import type { ApprovalControls, PlanControls } from '../../src/render/renderer-options.js';
import type { ReplyFormat } from '../../src/render/reply.js';
import type { TurnView } from '../../src/render/view.js';
import type { Locale } from '../../src/surface.js';
import {
  type Choice,
  type Control,
  type ControlId,
  type ControlStyle,
  approvalChoice,
  controls,
  detailsToggle,
  planChoice,
} from '../../src/render/controls.js';
import { statusLine } from '../../src/render/step-text.js';
import { DISCORD_MAX_CHARS, hasDetails, renderStepsText } from './steps-text.js';
import type { UserText } from '../../src/i18n/phrase.js';
import { say } from '../../src/i18n/say.js';
import { t } from '../../src/i18n/translate.js';

/** Sent with every message and edit: nobody is pinged by anything Scout posts. */
export const NO_MENTIONS = { parse: [] as never[] };

export const CUSTOM_ID = {
  toggle: 'scout_steps_toggle',
  stop: 'scout_stop',
  feedback: 'scout_feedback',
  plan: 'scout_plan',
  tool: 'scout_tool',
} as const;

export type DiscordPayload = MessageCreateOptions & MessageEditOptions;
type Row = ActionRowBuilder<MessageActionRowComponentBuilder>;

export function stepsPayload(
  view: TurnView,
  options: { turnId: string; expanded: boolean; locale: Locale; running: boolean },
): DiscordPayload {
  const content = renderStepsText(view, {
    expanded: options.expanded,
    workingText: statusLine(t(options.locale, 'status.working')),
  });
  const ids: ControlId[] = [];
  if (hasDetails(view)) ids.push(detailsToggle(options.expanded));
  if (options.running) ids.push('stop');
  return {
    content: content || '…',
    components: rows(ids, options.turnId, options.locale),
    allowedMentions: NO_MENTIONS,
    flags: MessageFlags.SuppressEmbeds,
  };
}

/** Discord renders `-#` as small grey text: the footer line under the answer. */
export function footerLine(footer: string): string {
  return `-# ${footer}`;
}

/** One part of the answer (already ≤ 2,000 characters): Stop while live, 👍/👎 on the final last part. */
export function answerPayload(
  markdown: string,
  state: AnswerControls,
  turnId: string,
  locale: Locale,
): DiscordPayload {
  const ids: ControlId[] = state.feedback ? ['feedback-up', 'feedback-down'] : state.stop ? ['stop'] : [];
  return {
    content: markdown || '…',
    components: rows(ids, turnId, locale),
    allowedMentions: NO_MENTIONS,
    flags: MessageFlags.SuppressEmbeds,
  };
}

/** A plain message (command output, a friendly refusal): no components, no pings, no previews. */
export function textPayload(markdown: string): DiscordPayload {
  return { content: markdown, allowedMentions: NO_MENTIONS, flags: MessageFlags.SuppressEmbeds };
}

/** A button's answer for the presser alone (ephemeral), said in their locale. */
export function ephemeralPayload(text: UserText, locale: Locale): InteractionReplyOptions {
  return { content: say(locale, text), flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS };
}

/** A reply to a message outside any turn (the store failed before the core got it). */
export function noticeReply(text: UserText, locale: Locale): MessageReplyOptions {
  return { content: say(locale, text), allowedMentions: NO_MENTIONS };
}

/** One part of a plan; the last carries Run / Cancel, then the outcome in their place. */
export function planPayload(
  markdown: string,
  state: PlanControls,
  turnId: string,
  locale: Locale,
): DiscordPayload {
  return choicePayload(markdown, planChoice(state, locale), turnId);
}

/** A tool call waiting for approval: Approve / Deny, then the outcome in their place. */
export function approvalPayload(
  markdown: string,
  state: ApprovalControls,
  turnId: string,
  locale: Locale,
): DiscordPayload {
  return choicePayload(markdown, approvalChoice(state, locale), turnId);
}

/** A choice's message: its buttons while open, then its outcome as a line where they were. */
function choicePayload(markdown: string, choice: Choice, turnId: string): DiscordPayload {
  return {
    content: choice.outcome ? `${markdown}\n${choice.outcome}` : markdown,
    components: choice.buttons.length > 0 ? [row(choice.buttons, turnId)] : [],
    allowedMentions: NO_MENTIONS,
    flags: MessageFlags.SuppressEmbeds,
  };
}

/** The custom_id each control's button carries; interactions.ts parses them back. */
function customId(id: ControlId, turnId: string): string {
  switch (id) {
    case 'show-details':
    case 'hide-details':
      return `${CUSTOM_ID.toggle}:${turnId}`;
    case 'stop':
      return CUSTOM_ID.stop;
    case 'feedback-up':
      return `${CUSTOM_ID.feedback}:up:${turnId}`;
    case 'feedback-down':
      return `${CUSTOM_ID.feedback}:down:${turnId}`;
    case 'run':
    case 'cancel':
      return `${CUSTOM_ID.plan}:${id}:${turnId}`;
    case 'approve':
    case 'deny':
      return `${CUSTOM_ID.tool}:${id}:${turnId}`;
  }
}

const STYLE: Record<ControlStyle, ButtonStyle> = {
  primary: ButtonStyle.Primary,
  danger: ButtonStyle.Danger,
  secondary: ButtonStyle.Secondary,
};

/** One row with the controls, or none when there are none (Discord refuses an empty row). */
function rows(ids: ControlId[], turnId: string, locale: Locale): Row[] {
  return ids.length > 0 ? [row(controls(locale, ...ids), turnId)] : [];
}

function row(list: Control[], turnId: string): Row {
  return new ActionRowBuilder<MessageActionRowComponentBuilder>().addComponents(
    list.map((control) =>
      new ButtonBuilder()
        .setCustomId(customId(control.id, turnId))
        .setStyle(STYLE[control.style])
        .setLabel(control.label),
    ),
  );
}

/**
 * Core replies use Slack-style `*bold*`; in Discord's Markdown a single asterisk is italics, so
 * command output would lose its emphasis. `**bold**` reads the same on both.
 */
export function toDiscordMarkdown(text: string): string {
  return text.replace(/(^|[^*\w])\*([^*\n]+)\*(?![*\w])/g, '$1**$2**');
}

/**
 * How Discord takes a reply (a command's answer, a friendly refusal): parts of 2,000 characters in
 * Discord's Markdown. Mentions are defused by each payload's `allowedMentions`.
 */
export const DISCORD_REPLY: ReplyFormat = { maxChars: DISCORD_MAX_CHARS, adapt: toDiscordMarkdown };
