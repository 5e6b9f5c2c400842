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
import type { AnswerControls, ApprovalControls, PlanControls } from '../../src/render/turn-renderer.js';
import type { TurnView } from '../../src/render/view.js';
import type { Locale } from '../../src/surface.js';
import { statusLine } from '../../src/render/step-text.js';
import { hasDetails, renderStepsText } from './steps-text.js';
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

/** Discord renders `-#` as small grey text: the footer line under the answer. */
export function footerLine(footer: string): string {
  return `-# ${footer}`;
}

/** One part of the answer (already ≤ 2,000 characters): Stop while live, 👍/👎 on the final last part. */
export function answerPayload(
  markdown: string,
  controls: AnswerControls,
  turnId: string,
  locale: Locale,
): DiscordPayload {
  const components = controls.feedback
    ? [feedbackRow(turnId, locale)]
    : controls.stop
      ? [stopRow(locale)]
      : [];
  return {
    content: markdown || '…',
    components,
    allowedMentions: NO_MENTIONS,
    flags: MessageFlags.SuppressEmbeds,
  };
}

/** A plain message (command output, a friendly refusal): no components, no pings, no previews. */
export function textPayload(markdown: string): DiscordPayload {
  return { content: markdown, allowedMentions: NO_MENTIONS, flags: MessageFlags.SuppressEmbeds };
}

function stopRow(locale: Locale): Row {
  return new ActionRowBuilder<MessageActionRowComponentBuilder>().addComponents(
    new ButtonBuilder()
      .setCustomId(CUSTOM_ID.stop)
      .setStyle(ButtonStyle.Danger)
      .setLabel(t(locale, 'button.stop')),
  );
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

/** One part of a plan; the last carries Run / Cancel, then the outcome in their place. */
export function planPayload(
  markdown: string,
  controls: PlanControls,
  turnId: string,
  locale: Locale,
): DiscordPayload {
  const outcome =
    controls === 'run' ? t(locale, 'plan.running') : controls === 'cancel' ? t(locale, 'plan.cancelled') : '';
  return {
    content: outcome ? `${markdown}\n${outcome}` : markdown,
    components: controls === 'choose' ? [planRow(turnId, locale)] : [],
    allowedMentions: NO_MENTIONS,
    flags: MessageFlags.SuppressEmbeds,
  };
}

function planRow(turnId: string, locale: Locale): Row {
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

/** A tool call waiting for approval: Approve / Deny, then the outcome in their place. */
export function approvalPayload(
  markdown: string,
  controls: ApprovalControls,
  turnId: string,
  locale: Locale,
): DiscordPayload {
  const outcome =
    controls === 'approved'
      ? t(locale, 'tool-approval.approved')
      : controls === 'denied'
        ? t(locale, 'tool-approval.denied')
        : '';
  return {
    content: outcome ? `${markdown}\n${outcome}` : markdown,
    components:
      controls === 'choose'
        ? [
            new ActionRowBuilder<MessageActionRowComponentBuilder>().addComponents(
              new ButtonBuilder()
                .setCustomId(`${CUSTOM_ID.tool}:approve:${turnId}`)
                .setStyle(ButtonStyle.Danger)
                .setLabel(t(locale, 'button.approve-tool')),
              new ButtonBuilder()
                .setCustomId(`${CUSTOM_ID.tool}:deny:${turnId}`)
                .setStyle(ButtonStyle.Secondary)
                .setLabel(t(locale, 'button.deny-tool')),
            ),
          ]
        : [],
    allowedMentions: NO_MENTIONS,
    flags: MessageFlags.SuppressEmbeds,
  };
}

/**
 * Core replies use Slack-style `*bold*`; in Discord's Markdown a single asterisk is italics, so
 * command output would lose its emphasis. `**bold**` reads the same on both.
 */
export function toDiscordMarkdown(text: string): string {
  return text.replace(/(^|[^*\w])\*([^*\n]+)\*(?![*\w])/g, '$1**$2**');
}
