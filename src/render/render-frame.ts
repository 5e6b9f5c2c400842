/**
 * How often a surface re-renders a turn's view. The core calls `sink.update` once per event (once
 * per streamed token), but a rendered payload is only useful as often as an edit can be sent (about
 * once a second per message). Rendering the whole view every time made streaming O(n²) over the
 * answer. A `RenderFrame` keeps what users see immediate where it matters and cheap elsewhere:
 *
 * - a visible change (a step appears or changes status or title, the status line or phase changes,
 *   the first answer text, the final answer, an error) renders on the next turn of the event loop;
 * - growing text (answer tokens, streamed reasoning) renders at most once per frame, the first one
 *   at once when no frame is running (leading edge), the rest at the frame's end (trailing edge);
 * - an editor about to send asks for a render of what grew since the last frame (`catchUp`), so the
 *   frames can be long without any call carrying stale text.
 */
import type { StepView, TurnView } from './view.js';

/**
 * Growing text renders at most this often per edit interval. An editor about to send renders what
 * grew since the last frame first (`catchUp`), so no call carries stale text; the frames only hand
 * editors the text that makes them schedule a call (and a native stream's content pacing its
 * measure). Ten frames per interval, as before, cost about a seventh of a streamed chat turn's CPU
 * (bench scenario 11, docs/performance.md).
 */
export const FRAMES_PER_EDIT_INTERVAL = 2;

export class RenderFrame {
  readonly #render: () => void;
  readonly #frameMs: number;
  #immediate: ReturnType<typeof setImmediate> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastRenderAt = Number.NEGATIVE_INFINITY;
  #stopped = false;

  constructor(render: () => void, frameMs: number) {
    this.#render = render;
    this.#frameMs = frameMs;
  }

  /** Asks for a render: `urgent` ones come on the next tick, others within one frame. */
  request(urgent: boolean): void {
    if (this.#stopped || this.#immediate) return;
    // Growing text with the frame's timer already set: it renders then (the common case, once per
    // streamed token; reading the clock for it cost more than the rest of the request).
    if (!urgent && this.#timer) return;
    const wait = this.#lastRenderAt + this.#frameMs - performance.now();
    if (urgent || wait <= 0) {
      this.#clearTimer();
      this.#immediate = setImmediate(() => this.#run());
    } else if (!this.#timer) {
      this.#timer = setTimeout(() => this.#run(), wait);
    }
  }

  /** Renders right now (a surface whose posts must go out in event order), ending any wait. */
  now(): void {
    if (this.#immediate) clearImmediate(this.#immediate);
    this.#run();
  }

  /**
   * Runs a render that is waiting for its frame or tick, now (an editor is about to send: it goes
   * with the newest text). Nothing waiting, nothing done.
   */
  catchUp(): void {
    if (this.#timer !== undefined || this.#immediate !== undefined) this.now();
  }

  /** No more renders (the final render is the caller's). */
  stop(): void {
    this.#stopped = true;
    this.#clearTimer();
    if (this.#immediate) clearImmediate(this.#immediate);
    this.#immediate = undefined;
  }

  #run(): void {
    this.#immediate = undefined;
    this.#clearTimer();
    if (this.#stopped) return;
    this.#lastRenderAt = performance.now();
    this.#render();
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * Tells a visible change of a view from text that merely grew, comparing with the view it saw
 * last (the view is mutated in place, so the values are remembered, not the object).
 */
export class ViewChanges {
  #steps: Array<Pick<StepView, 'status' | 'collapsed' | 'title'>> = [];
  #status: string | null = null;
  #phase: string | undefined;
  #hasAnswer = false;
  #answerFinal = false;
  #error: string | undefined;
  #done = false;

  /** True when `view` differs from the last one seen in more than growing text. */
  visible(view: TurnView): boolean {
    let changed = false;
    if (view.steps.length !== this.#steps.length) {
      changed = true;
      this.#steps.length = view.steps.length;
    }
    for (let i = 0; i < view.steps.length; i++) {
      const { status, collapsed, title } = view.steps[i]!;
      const seen = this.#steps[i];
      if (seen?.status !== status || seen.collapsed !== collapsed || seen.title !== title) {
        this.#steps[i] = { status, collapsed, title };
        changed = true;
      }
    }
    const hasAnswer = view.answer !== '';
    if (
      view.status !== this.#status ||
      view.phase !== this.#phase ||
      hasAnswer !== this.#hasAnswer ||
      view.answerFinal !== this.#answerFinal ||
      view.error !== this.#error ||
      view.done !== this.#done
    )
      changed = true;
    this.#status = view.status;
    this.#phase = view.phase;
    this.#hasAnswer = hasAnswer;
    this.#answerFinal = view.answerFinal;
    this.#error = view.error;
    this.#done = view.done;
    return changed;
  }
}
