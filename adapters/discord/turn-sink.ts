/**
 * One turn's output in a Discord channel or thread. How the turn looks is the shared TurnRenderer's
 * (src/render/turn-renderer.ts); this file gives it Discord's primitives — send / edit / delete a
 * message, the payload builders of render.ts, the 2,000-character limit, the typing indicator —
 * and connects the buttons (Show details, Run / Cancel, a tool's Approve / Deny) of a running turn.
 */
import { randomUUID } from 'node:crypto';
import type { Message, SendableChannels } from 'discord.js';
import type { Logger } from '../../src/logger.js';
import type { PlanProposal } from '../../src/modes/plan/plan-types.js';
import { phrase, type UserText } from '../../src/i18n/phrase.js';
import { say } from '../../src/i18n/say.js';
import { t } from '../../src/i18n/translate.js';
import { type ChannelPace, ChannelPacers } from '../../src/render/channel-pacer.js';
import type { ChannelLimits, PaceWindow } from '../../src/render/pace-rules.js';
import { describeDeliveryError } from '../../src/render/delivery.js';
import { tablesAsCode } from '../../src/render/markdown-tables.js';
import { deliverReply } from '../../src/render/reply.js';
import { TurnRenderer } from '../../src/render/turn-renderer.js';
import type { TurnView } from '../../src/render/view.js';
import type { Locale, TurnSink } from '../../src/surface.js';
import type { ToolApprovalRequest } from '../../src/tools/types.js';
import { discordWrite } from './delivery-errors.js';
import {
  answerPayload,
  approvalPayload,
  DISCORD_REPLY,
  footerLine,
  planPayload,
  stepsPayload,
  textPayload,
} from './render.js';
import { DISCORD_MAX_CHARS } from './steps-text.js';
import type { ActiveTurns, StepsArchive } from './turn-state.js';

/** ~1 edit/s per channel is what bots safely sustain on Discord (per-route limits are unpublished). */
export const EDIT_INTERVAL_MS = 1000;
/**
 * What Discord allows per channel (a thread is a channel): about 5 messages per 5 s; edits and
 * deletes have per-route buckets of the same size.
 */
export const DISCORD_CHANNEL_LIMITS: ChannelLimits = {
  post: [{ max: 5, perMs: 5_000 }],
  edit: [{ max: 5, perMs: 5_000 }],
  delete: [{ max: 5, perMs: 5_000 }],
};
/**
 * Discord's global limit: 50 requests a second per bot, whatever the channel. discord.js keeps each
 * process to it; several instances of one bot share it through the store (discord-surface.ts), and
 * their paced calls (posts, edits, deletes, the thread a turn opens, typing indicators) take at most
 * 45 of the 50 together, leaving the rest to calls not paced here (DMs, reading context, commands).
 * Ordinary writes leave 5 of the 45 to a turn's first answer text and final state.
 */
export const DISCORD_GLOBAL_LIMIT: PaceWindow = { max: 45, perMs: 1_000, reserve: 5 };
/** The typing indicator lasts 10 s; refresh a little before it lapses. */
export const TYPING_REFRESH_MS = 8000;

export interface TurnSinkDeps {
  channel: SendableChannels;
  /** The turn's conversation and asker: Stop and the plan's buttons are theirs (or an admin's). */
  conversationId?: string;
  askerId?: string;
  locale: Locale;
  logger: Logger;
  active: ActiveTurns;
  archive: StepsArchive;
  editIntervalMs?: number;
  typingIntervalMs?: number;
  /** Called for every message post and edit (the `scout_edits_sent_total` metric). */
  onEdit?: () => void;
  /** Longest wait before growing text is rendered (default: a tenth of the edit interval). */
  renderFrameMs?: number;
  /** The surface's channel pacers: the turns in one channel or thread share its pace. */
  pacers?: ChannelPacers;
  /** Per-channel limits (default DISCORD_CHANNEL_LIMITS; tests shrink them with the edit interval). */
  channelLimits?: ChannelLimits;
  /** Sends the typing indicator under the bot's global pace, or not at all (discord-surface.ts). */
  paceTyping?: (send: () => Promise<void>) => Promise<void>;
}

export class DiscordTurnSink implements TurnSink {
  readonly turnId = randomUUID();
  readonly conversationId: string | undefined;
  readonly askerId: string | undefined;
  readonly #renderer: TurnRenderer<ReturnType<typeof textPayload>, Message>;
  #typingTimer: ReturnType<typeof setInterval> | undefined;
  /** Between the turn's start and its end (or refusal): a typing indicator may still be sent. */
  #typing = false;
  #pendingPlan: ((run: boolean) => void) | undefined;
  #pendingApproval: ((approve: boolean) => void) | undefined;
  /** Approvals are asked one at a time (parallel tool calls queue), so each press answers one request. */
  #approvals: Promise<unknown> = Promise.resolve();
  #registered = false;
  /** The channel's pace, shared with the renderer and the other turns there. */
  readonly #pace: ChannelPace;

  constructor(private readonly deps: TurnSinkDeps) {
    this.conversationId = deps.conversationId;
    this.askerId = deps.askerId;
    const { channel, locale, logger } = deps;
    const turnId = this.turnId;
    const limits = deps.channelLimits ?? DISCORD_CHANNEL_LIMITS;
    const pacers = deps.pacers ?? new ChannelPacers();
    this.#pace = pacers.channel(channel.id, limits);
    this.#renderer = new TurnRenderer({
      writer: {
        post: (payload) => discordWrite<Message>(() => channel.send(payload)),
        edit: async (message, payload) => {
          await discordWrite(() => message.edit(payload));
        },
        remove: async (message) => {
          await discordWrite(() => message.delete());
        },
      },
      build: {
        steps: (view, controls) =>
          stepsPayload(view, { turnId, expanded: controls.expanded, locale, running: controls.stop }),
        answerPart: (markdown, controls) => answerPayload(markdown, controls, turnId, locale),
        planPart: (markdown, controls) => planPayload(markdown, controls, turnId, locale),
        approvalPart: (markdown, controls) => approvalPayload(markdown, controls, turnId, locale),
        footerLine,
        // Discord shows table syntax raw: a code block keeps the columns lined up.
        adaptMarkdown: tablesAsCode,
      },
      limits: { answerChars: DISCORD_MAX_CHARS, channel: limits },
      channel: { key: channel.id, pacers },
      locale,
      logger: logger.child({ turn: turnId }),
      intervalMs: deps.editIntervalMs ?? EDIT_INTERVAL_MS,
      ...(deps.renderFrameMs !== undefined ? { renderFrameMs: deps.renderFrameMs } : {}),
      activity: { start: () => this.#startTyping(), stop: () => this.#stopTyping() },
      onRefused: () => this.#tellAskerPrivately(),
      onFinished: ({ view, expanded }) =>
        deps.archive.save(turnId, {
          view: { steps: view.steps, phase: view.phase, status: null, done: true },
          expanded,
          locale,
        }),
      ...(deps.onEdit ? { onWrite: deps.onEdit } : {}),
    });
  }

  update(view: TurnView): void {
    this.#register();
    this.#renderer.update(view);
  }

  async done(view: TurnView): Promise<void> {
    this.#pendingPlan?.(false);
    this.#pendingApproval?.(false);
    try {
      await this.#renderer.done(view);
    } finally {
      this.deps.active.remove(this.turnId);
    }
  }

  /** In the channel, under its pace and the delivery policy (src/render/reply.ts). */
  async reply(text: UserText): Promise<void> {
    const { channel, locale, logger } = this.deps;
    await deliverReply(say(locale, text), DISCORD_REPLY, [
      { pace: this.#pace, write: (part) => discordWrite<Message>(() => channel.send(textPayload(part))) },
    ]).catch((err) => logger.warn({ err: describeDeliveryError(err) }, 'discord reply failed'));
  }

  /**
   * For the asker alone (a usage limit, `/usage` after a mention): a message in a server channel is
   * public and only interactions have ephemeral replies, so it goes by DM. A DM that is refused leaves
   * a short public note that the reply could not be sent, never the reply itself.
   */
  async replyPrivately(text: UserText): Promise<void> {
    const { channel, askerId, locale } = this.deps;
    if (!askerId || channel.isDMBased()) return this.reply(text);
    try {
      // A DM is not the channel: its pace does not count it.
      await deliverReply(say(locale, text), DISCORD_REPLY, [
        { write: (part) => discordWrite(() => channel.client.users.send(askerId, textPayload(part))) },
      ]);
    } catch (err) {
      this.deps.logger.warn({ err: describeDeliveryError(err) }, 'private reply by DM refused');
      await this.reply(phrase('reply.private-failed'));
    }
  }

  async confirmPlan(plan: PlanProposal, signal: AbortSignal): Promise<boolean> {
    this.#register();
    return this.#renderer.confirmPlan(plan, () =>
      this.#choice(signal, (resolve) => {
        this.#pendingPlan = resolve;
      }),
    );
  }

  async confirmTool(request: ToolApprovalRequest, signal: AbortSignal): Promise<boolean> {
    this.#register();
    const asked = this.#approvals.then(() =>
      signal.aborted
        ? false
        : this.#renderer.confirmTool(request, () =>
            this.#choice(signal, (resolve) => {
              this.#pendingApproval = resolve;
            }),
          ),
    );
    this.#approvals = asked.catch(() => undefined);
    return asked;
  }

  /** Waits for a button press (`hold` keeps the resolver where the press finds it); false on abort. */
  #choice(
    signal: AbortSignal,
    hold: (resolve: ((choice: boolean) => void) | undefined) => void,
  ): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      if (signal.aborted) return resolve(false);
      const finish = (choice: boolean) => {
        signal.removeEventListener('abort', onAbort);
        hold(undefined);
        resolve(choice);
      };
      const onAbort = () => finish(false);
      signal.addEventListener('abort', onAbort, { once: true });
      hold(finish);
    });
  }

  /** Called from the turn registry when someone presses Show/Hide details while the turn runs. */
  toggleDetails(): void {
    this.#renderer.toggleDetails();
  }

  resolvePlan(run: boolean): boolean {
    if (!this.#pendingPlan) return false;
    this.#pendingPlan(run);
    return true;
  }

  resolveApproval(approve: boolean): boolean {
    if (!this.#pendingApproval) return false;
    this.#pendingApproval(approve);
    return true;
  }

  /**
   * Discord refused the turn's messages here (Missing Access / Permissions): the asker hears it by a
   * DM from Scout, naming the channel. A turn never starts from a slash command, so there is no
   * interaction to answer ephemerally; in a DM there is no other private place. When the DM is
   * refused as well (the user takes no DMs), the renderer logs it once; nothing goes public.
   */
  async #tellAskerPrivately(): Promise<void> {
    const { channel, askerId, locale } = this.deps;
    if (!askerId || channel.isDMBased()) {
      this.deps.logger.warn({ channel: channel.id }, 'refused in a DM: nowhere else to tell the user');
      return;
    }
    const notice = `${t(locale, 'delivery.refused')}\n<#${channel.id}>`;
    await discordWrite(() => channel.client.users.send(askerId, textPayload(notice)));
  }

  /** First output of the turn: the buttons of its messages find it from now on. */
  #register(): void {
    if (this.#registered) return;
    this.#registered = true;
    this.deps.active.add(this.turnId, this);
  }

  #startTyping(): void {
    this.#typing = true;
    // The shared budget's answer can come after the turn stopped typing (its final landed): a
    // typing indicator sent then would show "typing…" under a finished answer for 10 s.
    const send = async () => {
      if (this.#typing) await this.deps.channel.sendTyping();
    };
    const paced = this.deps.paceTyping;
    const type = () => void (paced ? paced(send) : send()).catch(() => undefined);
    type();
    this.#typingTimer = setInterval(type, this.deps.typingIntervalMs ?? TYPING_REFRESH_MS);
    this.#typingTimer.unref?.();
  }

  #stopTyping(): void {
    this.#typing = false;
    if (this.#typingTimer) clearInterval(this.#typingTimer);
    this.#typingTimer = undefined;
  }
}
