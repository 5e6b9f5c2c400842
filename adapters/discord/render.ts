/**
 * Discord payloads for a turn: the steps message (text + Show/Hide details and Stop buttons), the
 * answer parts (link previews suppressed), feedback and plan buttons. Every payload carries
 * `allowedMentions: { parse: [] }`: edits re-parse mentions unless it is sent again, and model output
 * must never ping `@everyone`, a role or a user.
 */
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  type MessageActionRowComponentBuilder,
  type MessageCreateOptions,
  type MessageEditOptions,
  MessageFlags,
} from 'discord.js';
import type { TurnView } from '../../src/render/view.js';
import type { Locale } from '../../src/surface.js';
import { STATUS_ICON } from '../../src/render/step-text.js';
import { hasDetails, renderStepsText } from './steps-text.js';
import { t } from '../../src/i18n/translate.js';

/** Sent with every message and edit: nobody is pinged by anything Scout posts. */
export const NO_MENTIONS = { parse: [] as never[] };

export const CUSTOM_ID = {
  toggle: 'scout_steps_toggle',
  stop: 'scout_stop',
  feedback: 'scout_feedback',
  plan: 'scout_plan',
} as const;

export type DiscordPayload = MessageCreateOptions & MessageEditOptions;
type Row = ActionRowBuilder<MessageActionRowComponentBuilder>;

export function stepsPayload(
  view: TurnView,
  options: { turnId: string; expanded: boolean; locale: Locale; running: boolean },
): DiscordPayload {
  const content = renderStepsText(view, {
    expanded: options.expanded,
    workingText: `${STATUS_ICON.running} ${t(options.locale, 'status.working')}`,
  });
  const buttons: ButtonBuilder[] = [];
  if (hasDetails(view)) {
    buttons.push(
      new ButtonBuilder()
        .setCustomId(`${CUSTOM_ID.toggle}:${options.turnId}`)
        .setStyle(ButtonStyle.Secondary)
        .setLabel(t(options.locale, options.expanded ? 'button.hide-details' : 'button.show-details')),
    );
  }
  if (options.running) {
    buttons.push(
      new ButtonBuilder()
        .setCustomId(CUSTOM_ID.stop)
        .setStyle(ButtonStyle.Danger)
        .setLabel(t(options.locale, 'button.stop')),
    );
  }
  const components =
    buttons.length > 0
      ? [new ActionRowBuilder<MessageActionRowComponentBuilder>().addComponents(buttons)]
      : [];
  return {
    content: content || '…',
    components,
    allowedMentions: NO_MENTIONS,
    flags: MessageFlags.SuppressEmbeds,
  };
}

/** One part of the answer (already ≤ 2,000 characters). References stay as links without previews. */
export function answerPayload(markdown: string): DiscordPayload {
  return { content: markdown, allowedMentions: NO_MENTIONS, flags: MessageFlags.SuppressEmbeds };
}

/** The final answer text: the answer (or the error alone), the error after a partial answer, the stats line. */
export function finalAnswerText(view: TurnView): string {
  const parts: string[] = [];
  if (view.answer.trim() !== '') parts.push(view.answer.trim());
  if (view.error) parts.push(`⚠️ ${view.error}`);
  if (view.footer && view.answer.trim() !== '') parts.push(`-# ${view.footer}`);
  return parts.join('\n\n');
}

export function feedbackRow(turnId: string, locale: Locale): Row {
  return new ActionRowBuilder<MessageActionRowComponentBuilder>().addComponents(
    new ButtonBuilder()
      .setCustomId(`${CUSTOM_ID.feedback}:up:${turnId}`)
      .setStyle(ButtonStyle.Secondary)
      .setLabel(t(locale, 'button.feedback-up')),
    new ButtonBuilder()
      .setCustomId(`${CUSTOM_ID.feedback}:down:${turnId}`)
      .setStyle(ButtonStyle.Secondary)
      .setLabel(t(locale, 'button.feedback-down')),
  );
}

export function planRow(turnId: string, locale: Locale): Row {
  return new ActionRowBuilder<MessageActionRowComponentBuilder>().addComponents(
    new ButtonBuilder()
      .setCustomId(`${CUSTOM_ID.plan}:run:${turnId}`)
      .setStyle(ButtonStyle.Primary)
      .setLabel(t(locale, 'button.run-plan')),
    new ButtonBuilder()
      .setCustomId(`${CUSTOM_ID.plan}:cancel:${turnId}`)
      .setStyle(ButtonStyle.Secondary)
      .setLabel(t(locale, 'button.cancel-plan')),
  );
}

/** The plan as a numbered list for the confirmation message. */
export function planText(
  plan: { steps: { step: number; description: string; tool: string }[] },
  locale: Locale,
): string {
  const lines = plan.steps.map(
    (s) => `${s.step}. ${s.description.replace(/\s+/g, ' ').trim()} \`${s.tool}\``,
  );
  const text = `${t(locale, 'plan.prompt')}\n${lines.join('\n')}`;
  return text.length <= 2000 ? text : `${text.slice(0, 1999)}…`;
}
