/**
 * One turn's output in a Discord channel or thread: a steps message edited in place (Show/Hide
 * details, Stop while running), the answer in its own message(s) streamed through `LiveAnswer`
 * (each ≤ 2,000 characters, split at paragraph or code-fence boundaries), a typing indicator while
 * working, 👍/👎 under the final answer and Run/Cancel for plans.
 */
import { randomUUID } from 'node:crypto';
import type { Message, SendableChannels } from 'discord.js';
import type { Logger } from '../../src/logger.js';
import type { PlanProposal } from '../../src/modes/plan/plan-types.js';
import { LiveAnswer } from '../../src/render/live-answer.js';
import { FRAMES_PER_EDIT_INTERVAL, RenderFrame, ViewChanges } from '../../src/render/render-frame.js';
import { splitMessage } from '../../src/render/split-text.js';
import { ThrottledEditor } from '../../src/render/throttled-editor.js';
import type { TurnView } from '../../src/render/view.js';
import type { Locale, TurnSink } from '../../src/surface.js';
import {
  answerPayload,
  type DiscordPayload,
  feedbackRow,
  finalAnswerText,
  NO_MENTIONS,
  planRow,
  planText,
  stepsPayload,
} from './render.js';
import { DISCORD_MAX_CHARS } from './steps-text.js';
import { discordWrite } from './delivery-errors.js';
import { t } from '../../src/i18n/translate.js';
import type { ActiveTurns, StepsArchive } from './turn-state.js';

/** ~1 edit/s per channel is what bots safely sustain on Discord (per-route limits are unpublished). */
export const EDIT_INTERVAL_MS = 1000;
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
}

export class DiscordTurnSink implements TurnSink {
  readonly turnId = randomUUID();
  readonly conversationId: string | undefined;
  readonly askerId: string | undefined;
  private expanded = false;
  private started = false;
  private finished = false;
  private view: TurnView | undefined;
  private typingTimer: ReturnType<typeof setInterval> | undefined;
  private pendingPlan: ((run: boolean) => void) | undefined;
  private readonly steps: ThrottledEditor<DiscordPayload, Message>;
  private readonly answer: LiveAnswer<DiscordPayload, Message>;
  private readonly frame: RenderFrame;
  private readonly changes = new ViewChanges();

  constructor(private readonly deps: TurnSinkDeps) {
    this.conversationId = deps.conversationId;
    this.askerId = deps.askerId;
    const intervalMs = deps.editIntervalMs ?? EDIT_INTERVAL_MS;
    const onError = (err: unknown, call: string) =>
      deps.logger.warn({ err, call, turn: this.turnId }, 'discord send failed');
    const post = (payload: DiscordPayload) => {
      deps.onEdit?.();
      return discordWrite<Message>(() => deps.channel.send(payload));
    };
    const edit = async (message: Message, payload: DiscordPayload) => {
      deps.onEdit?.();
      await discordWrite(() => message.edit(payload));
    };
    this.steps = new ThrottledEditor<DiscordPayload, Message>({ post, edit, intervalMs, onError });
    this.answer = new LiveAnswer<DiscordPayload, Message>({
      post,
      edit,
      remove: async (message) => {
        await discordWrite(() => message.delete());
      },
      maxChars: DISCORD_MAX_CHARS,
      intervalMs,
      transform: answerPayload,
      onError,
    });
    this.frame = new RenderFrame(
      () => this.render(),
      deps.renderFrameMs ?? intervalMs / FRAMES_PER_EDIT_INTERVAL,
    );
  }

  update(view: TurnView): void {
    if (this.finished) return;
    this.view = view;
    this.start();
    // A visible change renders at once, as each event always did here: the steps message is then
    // posted before any answer text exists, so it stays above the answer. Growing text waits a frame.
    if (this.changes.visible(view)) this.frame.now();
    else this.frame.request(false);
  }

  private render(): void {
    const view = this.view;
    if (this.finished || !view) return;
    try {
      this.steps.set(this.renderSteps(view, true));
      if (view.answer !== '') this.answer.set(view.answer);
    } catch (err) {
      // A render bug must cost one frame, not the process: the final render runs in done().
      this.deps.logger.error({ err, turn: this.turnId }, 'discord render failed');
    }
  }

  async done(view: TurnView): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.view = view;
    this.frame.stop();
    this.stopTyping();
    this.pendingPlan?.(false);
    try {
      if (this.steps.posted || view.steps.length > 0 || view.phase)
        this.steps.set(this.renderSteps(view, false));
      const final = finalAnswerText(view);
      await Promise.all([this.steps.flush(), final ? this.answer.finish(final) : Promise.resolve()]);
      const last = this.answer.refs.at(-1);
      if (last && view.answer.trim() !== '' && !view.error) {
        this.deps.onEdit?.();
        await last.edit({
          components: [feedbackRow(this.turnId, this.deps.locale)],
          allowedMentions: NO_MENTIONS,
        });
      }
      if (this.steps.posted) {
        await this.deps.archive.save(this.turnId, {
          view: { steps: view.steps, phase: view.phase, status: null, done: true },
          expanded: this.expanded,
          locale: this.deps.locale,
        });
      }
    } catch (err) {
      this.deps.logger.warn({ err, turn: this.turnId }, 'final render failed');
    } finally {
      this.steps.dispose();
      this.deps.active.remove(this.turnId);
    }
  }

  async reply(text: string): Promise<void> {
    for (const part of splitMessage(text, DISCORD_MAX_CHARS))
      await this.deps.channel.send(answerPayload(part));
  }

  async confirmPlan(plan: PlanProposal, signal: AbortSignal): Promise<boolean> {
    this.start();
    const locale = this.deps.locale;
    const text = planText(plan, locale);
    const message = await this.deps.channel.send({
      content: text,
      components: [planRow(this.turnId, locale)],
      allowedMentions: NO_MENTIONS,
    });
    const run = await new Promise<boolean>((resolve) => {
      if (signal.aborted) return resolve(false);
      const onAbort = () => resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.pendingPlan = (choice) => {
        signal.removeEventListener('abort', onAbort);
        this.pendingPlan = undefined;
        resolve(choice);
      };
    });
    const status = t(locale, run ? 'plan.running' : 'plan.cancelled');
    await message
      .edit({ content: `${text}\n${status}`, components: [], allowedMentions: NO_MENTIONS })
      .catch(() => undefined);
    return run;
  }

  /** Called from the turn registry when someone presses Show/Hide details while the turn runs. */
  toggleDetails(): void {
    this.expanded = !this.expanded;
    if (this.view && !this.finished) this.steps.set(this.renderSteps(this.view, true));
  }

  resolvePlan(run: boolean): boolean {
    if (!this.pendingPlan) return false;
    this.pendingPlan(run);
    return true;
  }

  private renderSteps(view: TurnView, running: boolean): DiscordPayload {
    return stepsPayload(view, {
      turnId: this.turnId,
      expanded: this.expanded,
      locale: this.deps.locale,
      running,
    });
  }

  /** First output of the turn: register for buttons and start the typing indicator. */
  private start(): void {
    if (this.started) return;
    this.started = true;
    this.deps.active.add(this.turnId, this);
    const type = () => void this.deps.channel.sendTyping().catch(() => undefined);
    type();
    this.typingTimer = setInterval(type, this.deps.typingIntervalMs ?? TYPING_REFRESH_MS);
    this.typingTimer.unref?.();
  }

  private stopTyping(): void {
    if (this.typingTimer) clearInterval(this.typingTimer);
    this.typingTimer = undefined;
  }
}
