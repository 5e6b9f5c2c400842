/**
 * The one turn renderer. Every surface draws a turn the same way; an adapter only gives primitives
 * (post / edit / delete a message with its platform payload), payload builders (Block Kit, Discord
 * components) and its limits (renderer-options.ts). What a turn looks like lives here:
 *
 * - the steps message: posted with the first step, edited live (throttled), collapsed at the end,
 *   with Show details when a finished step has a body;
 * - the answer: as many messages as the text needs (LiveAnswer: split at paragraph / code-fence
 *   boundaries, reconciled against the final text whatever it is), error and cancel notices, the
 *   footer (the Markdown of answers, plans and approvals: turn-markdown.ts);
 * - controls on the last live message only: Stop while running (the steps message until the answer
 *   starts, then the answer's last part); 👍/👎 inside the final content edit of the last part;
 * - the status line (set once, before anything shows; the platform clears it when the turn's first
 *   message arrives, so it is cleared here only where none did) and the typing/activity indicator;
 * - an optional native answer stream (answer-stream.ts): the answer's first message streams, with the
 *   steps as task cards (task-cards.ts); the same splitting, controls and delivery policy apply, and a refused
 *   stream falls back to the ordinary messages — one renderer with a capability, not two paths;
 * - plans shown whole (split across messages, never cut), Run/Cancel on the last part, and tool
 *   approvals (confirmations.ts);
 * - the delivery policy (delivery.ts: retries, the final until its deadline, a refusal told privately)
 *   and pacing (each message's editor, then every write through the channel's shared pacer).
 */
import type { PlanProposal } from '../modes/plan/plan-types.js';
import type { ToolApprovalRequest } from '../tools/types.js';
import { t } from '../i18n/translate.js';
import { type HeadContent, StreamHead } from './answer-stream.js';
import { type ChannelPace, ChannelPacers, scopedPace } from './channel-pacer.js';
import { confirmPlan, confirmTool, type QuestionContext } from './confirmations.js';
import { systemClock } from './editor-clock.js';
import { DEFAULT_CHANNEL_LIMITS } from './pace-rules.js';
import { type DeliveryError, describeDeliveryError, isRefused } from './delivery.js';
import type { PartPlace } from './answer-parts.js';
import { LiveAnswer } from './live-answer.js';
import { FRAMES_PER_EDIT_INTERVAL, RenderFrame, ViewChanges } from './render-frame.js';
import { answerMarkdown } from './turn-markdown.js';
import type { AnswerControls, MessageWriter } from './message-writer.js';
import type { TurnRendererOptions } from './renderer-options.js';
import { TaskCards } from './task-cards.js';
import { ThrottledEditor } from './throttled-editor.js';
import type { TurnView } from './view.js';
import { wellFormedView } from './well-formed.js';

/**
 * Longest the answer's final text waits for done() before it shows on its own (at least an edit
 * interval): done() normally follows within milliseconds (the turn is saved), and then the final
 * text goes in done()'s own calls instead of a call of its own just before them.
 */
export const FINAL_HOLD_MS = 2_000;

/** An answer part's payload: an ordinary message, or the content of a native stream's head. */
type PartPayload<P> = { payload: P } | { head: HeadContent<unknown> };

export class TurnRenderer<P, R> {
  readonly #o: TurnRendererOptions<P, R>;
  /** Every write of the turn takes a slot of its channel's pace first. */
  readonly #pace: ChannelPace;
  readonly #steps: ThrottledEditor<P, R>;
  readonly #answer: LiveAnswer<PartPayload<P>, R>;
  readonly #head: StreamHead<P, R, unknown> | undefined;
  /** The steps as the stream's task cards (only with a native stream). */
  readonly #tasks: TaskCards | undefined;
  readonly #frame: RenderFrame;
  readonly #changes = new ViewChanges();
  #view: TurnView | undefined;
  #expanded = false;
  #started = false;
  #finished = false;
  #statusShown: string | null = null;
  /** The status call in flight: the turn's first message waits for it, so Slack clears it after. */
  #statusCall: Promise<void> | undefined;
  /** A write of this turn landed: a message exists, which cleared the status line. */
  #replied = false;
  #refusal: DeliveryError | undefined;
  #answerStarted = false;
  /**
   * The answer is final but the turn not done yet: its final text waits for done() for an edit
   * interval or FINAL_HOLD_MS, whichever is longer (then it shows on its own: done can be late, e.g.
   * a slow store saving the turn).
   */
  #finalHold: { timer: unknown; over: boolean } | undefined;
  /** Telling the asker privately that the platform refused this turn's messages. */
  #notice: Promise<void> | undefined;

  constructor(options: TurnRendererOptions<P, R>) {
    this.#o = options;
    const pacers = options.channel?.pacers ?? new ChannelPacers(options.clock);
    const pace = scopedPace(
      pacers.channel(options.channel?.key ?? '', options.limits.channel ?? DEFAULT_CHANNEL_LIMITS),
      options.wider ?? {},
    );
    this.#pace = pace;
    const writer = this.#guarded(options.writer);
    const onError = (err: unknown, call: string) =>
      options.logger.warn({ err: describeDeliveryError(err), call }, 'turn write failed');
    const onGiveUp = (err: unknown, call: string) =>
      options.logger.error(
        { err: describeDeliveryError(err), call },
        'turn write not delivered: the message shows an older state',
      );
    // Growing text renders a few times per edit interval (the frame); a call about to be sent
    // renders what grew since then first, so it carries the newest text all the same.
    const refresh = () => this.#frame.catchUp();
    this.#steps = new ThrottledEditor<P, R>({
      post: writer.post,
      edit: writer.edit,
      intervalMs: options.intervalMs,
      clock: options.clock,
      pace: (call, urgent) => pace.acquire(call, urgent),
      refresh,
      onError,
      onGiveUp,
    });
    const stream = options.stream;
    const head = stream
      ? new StreamHead<P, R, unknown>({
          stream,
          writer,
          guard: (call) => this.#guard(call),
          plain: (markdown, controls) => options.build.answerPart(markdown, controls),
          intervalMs: options.intervalMs,
          ...(options.clock ? { clock: options.clock } : {}),
          pace: (kind, urgent) => pace.acquire(kind, urgent),
          onError,
          refresh,
          // Refused before anything streamed: the steps now need their ordinary message.
          onRefused: (_scope, shown) => {
            if (!shown) this.#frame.request(true);
          },
        })
      : undefined;
    this.#head = head;
    this.#tasks = stream ? new TaskCards((step, sources) => stream.task(step, sources)) : undefined;
    this.#answer = new LiveAnswer<PartPayload<P>, R>({
      post: (part) => ('head' in part ? head!.post(part.head) : writer.post(part.payload)),
      edit: (ref, part) => ('head' in part ? head!.edit(ref, part.head) : writer.edit(ref, part.payload)),
      // Deleting a message the answer no longer needs is part of the final state: urgent.
      ...(writer.remove ? { remove: (ref: R) => pace.run('delete', () => writer.remove!(ref), true) } : {}),
      // Part 0 is the native stream's head while it streams (a final with nothing streamed yet is
      // an ordinary post). Its first post is the turn's first answer text: it goes before
      // intermediate writes, like the final state (SPEC §8).
      pace: (call, index, urgent) =>
        index === 0
          ? pace.acquire(
              head && !(this.#finished && call === 'post') ? head.kind(call) : call,
              urgent || call === 'post',
            )
          : pace.acquire(call, urgent),
      // The stream appends by content as well as time (StreamHead.holdMs).
      ...(head ? { hold: (index: number, part: PartPayload<P>) => holdOf(head, index, part) } : {}),
      maxChars: options.limits.answerChars,
      intervalMs: options.intervalMs,
      clock: options.clock,
      transform: (markdown, place) => this.#partPayload(markdown, place),
      key: (part) => ('head' in part ? head!.key(part.head) : JSON.stringify(part.payload)),
      refresh,
      onError,
    });
    this.#frame = new RenderFrame(
      () => this.#render(),
      options.renderFrameMs ?? options.intervalMs / FRAMES_PER_EDIT_INTERVAL,
    );
  }

  /** The steps message once posted (Show details presses find the turn by it). */
  get stepsRef(): R | undefined {
    return this.#steps.ref;
  }

  get refused(): boolean {
    return this.#refusal !== undefined;
  }

  /** The core's `update`: returns at once; a visible change renders now, growing text per frame. */
  update(view: TurnView): void {
    if (this.#finished) return;
    this.#view = view;
    this.#start();
    // A visible change renders at once so the steps message is posted before any answer text
    // and stays above it; growing text waits for the frame.
    if (this.#changes.visible(view)) this.#frame.now();
    else this.#frame.request(false);
  }

  /** The core's `done`: lands the final state of every message, then clears the status once. */
  async done(finalView: TurnView): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    const view = wellFormedView(finalView);
    this.#view = view;
    this.#frame.stop();
    this.#stopFinalHold();
    this.#o.activity?.stop();
    try {
      // The final task cards carry the answer's sources.
      this.#updateTasks(view);
      // From here later turns leave this one room: the oldest answers finish first.
      this.#pace.finishing?.();
      const steps = this.#stepsPayload(view, true);
      if (steps) this.#steps.set(steps);
      const text = answerMarkdown(view, this.#o.build.footerLine, this.#o.build.adaptMarkdown);
      // A steps message not posted yet must land above the answer: wait for it first.
      if (steps && !this.#steps.posted) await this.#steps.flush();
      await Promise.all([this.#steps.flush(), this.#answer.finish(text)]);
      // A stream that showed task cards but no answer text is ended too.
      await this.#head?.finish(this.#taskList);
      // A Show details press while the answer landed changed the steps payload: land it too.
      await this.#steps.flush();
    } catch (err) {
      this.#o.logger.error({ err }, 'final render failed');
    } finally {
      this.#steps.dispose();
      // Its final state landed (or was given up): later turns no longer leave room for it.
      this.#pace.end?.();
    }
    // Independent of the answer's delivery: Show details keeps working even if an edit failed.
    if (this.#steps.ref !== undefined && this.#o.onFinished) {
      await this.#o
        .onFinished({ stepsRef: this.#steps.ref, view, expanded: this.#expanded })
        .catch((err) => this.#o.logger.warn({ err }, 'saving the steps for Show details failed'));
    }
    // A reply clears the status line by itself: one more call only where nothing was posted.
    if (this.#statusShown !== null && !this.#replied && !this.#refusal) await this.#setStatus('');
    await this.#notice;
  }

  /** Show / Hide details on the running turn. */
  toggleDetails(): void {
    this.#expanded = !this.#expanded;
    // Also while `done` is landing the final state: the press is part of what it lands.
    if (this.#view) {
      const steps = this.#stepsPayload(wellFormedView(this.#view), this.#finished);
      if (steps) this.#steps.set(steps);
    }
  }

  /**
   * Shows a plan whole (split across messages when long, Run/Cancel on the last part), waits for
   * `choose`, then replaces the buttons with the outcome.
   */
  async confirmPlan(plan: PlanProposal, choose: () => Promise<boolean>): Promise<boolean> {
    this.#start();
    return confirmPlan(this.#question(), plan, choose);
  }

  /**
   * Shows a tool call waiting for Approve / Deny, waits for `choose`, then replaces the buttons with
   * the outcome. A surface without `approvalPart`, or a message that cannot be posted, is a denial:
   * nothing that changes the world runs unasked.
   */
  async confirmTool(request: ToolApprovalRequest, choose: () => Promise<boolean>): Promise<boolean> {
    const build = this.#o.build.approvalPart?.bind(this.#o.build);
    if (!build) return false;
    this.#start();
    return confirmTool(this.#question(), build, request, choose);
  }

  #question(): QuestionContext<P, R> {
    const o = this.#o;
    const writer = this.#guarded(o.writer);
    return {
      writer,
      pace: this.#pace,
      build: o.build,
      answerChars: o.limits.answerChars,
      locale: o.locale,
      logger: o.logger,
    };
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#o.activity?.start();
    // The platform's status line says Scout is working; set once (the steps, task cards and text
    // show the progress from then on) and cleared once in `done`.
    if (this.#o.status) {
      const call = this.#setStatus(this.#view?.status || t(this.#o.locale, 'status.working'));
      this.#statusCall = call;
      void call.finally(() => {
        if (this.#statusCall === call) this.#statusCall = undefined;
      });
    }
  }

  #render(): void {
    if (this.#finished || !this.#view || this.#refusal) return;
    try {
      // Once per frame, not per token: the check reads the whole answer.
      const view = wellFormedView(this.#view);
      const text = answerMarkdown(view, undefined, this.#o.build.adaptMarkdown);
      const answerStarts = text !== '' && !this.#answerStarted;
      if (answerStarts) this.#answerStarted = true;
      // Once the answer is final only the turn's final state is left, which done() lands next: the
      // final text (what streamed, and its References) goes with it, not in a call of its own right
      // before it (an append before the stream's stop, an edit before the final edit).
      const grow = text !== '' && !(view.answerFinal && !view.done && !this.#finalHeldLong());
      if (this.#head?.showsSteps) {
        // Native stream: the steps are its task cards, before the text or with part 0 of it.
        if (this.#updateTasks(view)) {
          if (text) this.#answer.refresh();
          else this.#head.setTasks(this.#taskList);
        }
        if (grow) this.#answer.set(text);
        return;
      }
      const steps = this.#stepsPayload(view, false);
      if (steps) this.#steps.set(steps);
      // Keep the steps message above the answer: wait until it is posted.
      if (steps && !this.#steps.posted) {
        if (text) this.#frame.request(false);
        return;
      }
      if (grow) this.#answer.set(text);
    } catch (err) {
      // A render bug must cost one frame, not the process: the final render runs in done().
      this.#o.logger.error({ err }, 'render failed');
    }
  }

  #stopFinalHold(): void {
    if (this.#finalHold) (this.#o.clock ?? systemClock).clearTimeout(this.#finalHold.timer);
  }

  /**
   * Whether the final text has waited for done() longer than its hold (the first call starts that
   * wait). Until then a done() that follows at once carries the text in its own calls.
   */
  #finalHeldLong(): boolean {
    if (this.#finalHold) return this.#finalHold.over;
    const clock = this.#o.clock ?? systemClock;
    const hold = { timer: undefined as unknown, over: false };
    hold.timer = clock.setTimeout(
      () => {
        hold.over = true;
        this.#frame.request(false);
      },
      Math.max(this.#o.intervalMs, FINAL_HOLD_MS),
    );
    this.#finalHold = hold;
    return false;
  }

  /** The task cards of the view's steps (none without a native stream); true when any card is new. */
  #updateTasks(view: TurnView): boolean {
    return this.#tasks?.update(view) ?? false;
  }

  get #taskList(): unknown[] {
    return this.#tasks?.list ?? [];
  }

  #stepsPayload(view: TurnView, final: boolean): P | undefined {
    // A native stream shows the steps as task cards.
    if (this.#head?.showsSteps) return undefined;
    // Without a platform status line the steps message is the status: it shows from the start.
    const hasSteps = view.steps.length > 0 || this.#steps.posted || !this.#o.status;
    if (!hasSteps) return undefined;
    return this.#o.build.steps(view, {
      stop: !final && !view.done && !this.#answerStarted,
      expanded: this.#expanded,
      final: final || view.done,
    });
  }

  #partPayload(markdown: string, place: PartPlace): PartPayload<P> {
    const controls = this.#controls(place);
    if (this.#head && place.index === 0)
      return { head: { tasks: this.#taskList, markdown, controls, final: place.final, last: place.last } };
    return { payload: this.#o.build.answerPart(markdown, controls) };
  }

  /** Stop on the last part while running; footer and 👍/👎 on the last part of a finished answer. */
  #controls(place: { last: boolean; final: boolean }): AnswerControls {
    const view = this.#view;
    const final = place.final;
    const feedback = final && place.last && Boolean(view?.answer.trim()) && !view?.error;
    const footer = final && place.last && !this.#o.build.footerLine ? view?.footer : undefined;
    return { stop: place.last && !final, feedback, ...(footer ? { footer } : {}) };
  }

  async #setStatus(text: string): Promise<void> {
    if (!this.#o.status) return;
    this.#statusShown = text || null;
    await this.#o.status(text).catch((err) => this.#o.logger.debug({ err }, 'status update failed'));
  }

  /** Counts one write and stops them all at the first refusal (then tells the user privately, once). */
  async #guard<T>(call: () => Promise<T>): Promise<T> {
    if (this.#refusal) throw this.#refusal;
    // The status must reach the platform before the reply that clears it.
    if (this.#statusCall) await this.#statusCall;
    this.#o.onWrite?.();
    try {
      const result = await call();
      this.#replied = true;
      return result;
    } catch (err) {
      if (isRefused(err) && !this.#refusal) this.#refuse(err as DeliveryError);
      throw err;
    }
  }

  #guarded(writer: MessageWriter<P, R>): MessageWriter<P, R> {
    const guard = <T>(call: () => Promise<T>) => this.#guard(call);
    return {
      post: (payload) => guard(() => writer.post(payload)),
      edit: (ref, payload) => guard(() => writer.edit(ref, payload)),
      ...(writer.remove ? { remove: (ref: R) => guard(() => writer.remove!(ref)) } : {}),
    };
  }

  #refuse(error: DeliveryError): void {
    this.#refusal = error;
    this.#frame.stop();
    this.#stopFinalHold();
    // A typing indicator there is refused too (Discord: it needs Send Messages), every few seconds.
    this.#o.activity?.stop();
    this.#o.logger.warn(
      { err: error.message },
      'the platform refuses this turn’s messages; not writing here',
    );
    if (!this.#o.onRefused) return;
    void this.#o
      .onRefused(error)
      .catch((err) =>
        this.#o.logger.warn({ err: describeDeliveryError(err) }, 'could not tell the user privately'),
      );
  }
}

function holdOf<P, R>(head: StreamHead<P, R, unknown>, index: number, part: PartPayload<P>): number {
  return index === 0 && 'head' in part ? head.holdMs(part.head) : 0;
}
