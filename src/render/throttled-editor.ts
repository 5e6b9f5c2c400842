/**
 * The one place per-message edit throttling lives. A `ThrottledEditor` owns ONE platform message:
 * the first `set` posts it at once, later `set`s are coalesced (last write wins) into at most one
 * edit per interval, scheduled only after the previous call finished, and `flush` makes the final
 * content land. Same shape as Vercel Chat SDK's fallback stream (`thread.ts`): post once, edit after
 * the last edit finished, always a final edit. Where the channel limits writes too, each call first
 * waits for a slot of the channel's pacer (channel-pacer.ts) and only then reads the payload.
 *
 * The interval paces intermediate frames only: `flush` sends the final content as soon as no call is
 * in flight (the platform's limits are the pacer's and the server's rate-limit answers, which still
 * hold), so an answer's final state lands when its last token arrived, not an interval later. A
 * payload may also be held past the interval until enough of it changed (`hold`: a native stream
 * appends by content as well as time).
 */
import type { PaceRequest, PaceSlot } from './channel-pacer.js';
import {
  deliveryKindOf,
  FINAL_DEADLINE_MS,
  isRetryable,
  MAX_BACKOFF_MS,
  retryAfterMsOf,
} from './delivery.js';
import { type EditorClock, systemClock } from './editor-clock.js';

export interface ThrottledEditorOptions<P, R> {
  /** Creates the message; resolves with the platform's reference to it (Slack ts, Discord id). */
  post: (payload: P) => Promise<R>;
  /** Replaces the message's content. */
  edit: (ref: R, payload: P) => Promise<void>;
  /** Minimum time between the end of one call and the start of the next. */
  intervalMs: number;
  clock?: EditorClock;
  /** Identity of a payload: equal keys are not re-sent. Defaults to JSON.stringify. */
  key?: (payload: P) => string;
  /** Failed calls are reported here and never thrown: a failed edit must not end the stream. */
  onError?: (error: unknown, call: 'post' | 'edit') => void;
  /** `flush` could not land the latest payload (refused, rejected, or the deadline passed). */
  onGiveUp?: (error: unknown, call: 'post' | 'edit') => void;
  /**
   * The channel's pace (channel-pacer.ts): every call waits for a slot first, urgent while `flush`
   * is landing the final payload. Absent: only this message's interval paces the calls.
   */
  pace?: (call: 'post' | 'edit', urgent: boolean) => PaceRequest;
  /**
   * How long after the last call ended an edit with this payload may still wait (0: it goes at the
   * interval): too little changed to be worth a call yet. Asked again with every `set`, so content
   * that becomes worth sending goes at once; `flush` and `setNow` never wait for it.
   */
  hold?: (payload: P) => number;
  /**
   * Brings the payload up to date just before a call reads it (the turn renders the text that grew
   * since its last frame, and `set`s it here). Growing text is then rendered a few times per
   * interval instead of on every frame, and each call still carries everything so far.
   */
  refresh?: () => void;
}

/**
 * Attempts `flush` makes on a payload failing with an error no adapter classified (it never throws).
 * Classified errors follow the delivery policy (delivery.ts): rate limits and outages are retried
 * until the deadline, refusals and rejected payloads are not retried.
 */
const MAX_UNCLASSIFIED_FAILURES = 3;

export { retryAfterMsOf };

export class ThrottledEditor<P, R = unknown> {
  readonly #opts: ThrottledEditorOptions<P, R>;
  readonly #clock: EditorClock;
  readonly #key: (payload: P) => string;
  #ref: R | undefined;
  #posted = false;
  #latest: { payload: P; key: string } | undefined;
  #sentKey: string | undefined;
  #inFlight: Promise<unknown> | undefined;
  #timer: unknown;
  /** Earliest time the next call may start (end of the last call + interval, or a server's delay). */
  #nextAllowedAt = Number.NEGATIVE_INFINITY;
  /** Earliest time a server's rate-limit answer allows the next call (`setNow` never skips it). */
  #serverAllowsAt = Number.NEGATIVE_INFINITY;
  /** When the last call ended (`hold` counts from there). */
  #lastEndAt = Number.NEGATIVE_INFINITY;
  /** When the scheduled send fires (a `set` that makes it due sooner moves it). */
  #timerAt = Number.POSITIVE_INFINITY;
  /** The next call skips the interval once (see `setNow`). */
  #expedited = false;
  #lastCallFailed = false;
  /** Failed calls so far (flush counts its own to know when to give up). */
  #failures = 0;
  /** Consecutive retryable failures (the backoff doubles with each). */
  #retryStreak = 0;
  #lastError: unknown;
  /** The last failure was a rate limit: the same payload is retried after the server's delay. */
  #rateLimitedRetry = false;
  #disposed = false;
  /** `flush` calls under way: the calls they wait on are urgent for the channel's pacer. */
  #flushing = 0;
  /** The call waiting for a slot of the channel's pacer. */
  #waiting: PaceRequest | undefined;
  /** `refresh` is running: a `set` it makes must not start a second call. */
  #refreshing = false;

  constructor(options: ThrottledEditorOptions<P, R>) {
    this.#opts = options;
    this.#clock = options.clock ?? systemClock;
    this.#key = options.key ?? ((payload) => JSON.stringify(payload));
  }

  /** The platform reference once the post succeeded. */
  get ref(): R | undefined {
    return this.#ref;
  }

  /** True when the platform shows the latest payload. */
  get delivered(): boolean {
    return !this.#hasUnsent();
  }

  /** Resolves once no call is in flight (a post in flight has its reference by then). */
  async settled(): Promise<void> {
    while (this.#inFlight) await this.#inFlight;
  }

  /** True once the message exists on the platform. */
  get posted(): boolean {
    return this.#posted;
  }

  /** Sets the content the message should show. Returns at once; the editor decides when to send. */
  set(payload: P): void {
    if (this.#disposed) return;
    this.#latest = { payload, key: this.#key(payload) };
    // A held send may be due sooner now that more changed: wake it then instead.
    if (this.#opts.hold && this.#timer !== undefined && this.#clock.now() + this.#waitMs() < this.#timerAt)
      this.#clearTimer();
    this.#schedule();
  }

  /**
   * Sets the content and sends it as soon as no call is in flight, skipping the edit interval once
   * (a server's rate-limit delay still holds). For the first visible answer text on a message that
   * already carries other content (SPEC §8: the first visible text goes out immediately); the
   * interval applies again from the end of that call.
   */
  setNow(payload: P): void {
    if (this.#disposed) return;
    this.#expedited = true;
    // A send waiting for the interval goes now instead (with this payload).
    this.#clearTimer();
    this.set(payload);
  }

  /**
   * Makes the latest payload land: waits for a call in flight, then sends the latest payload if it
   * differs from what was last sent (respecting the interval and any server delay). Rate limits and
   * outages are retried until `deadlineMs` passed; a refused or rejected payload is not retried;
   * an unclassified failure a few times. Never throws; `onGiveUp` hears of a payload that did not land.
   */
  async flush(deadlineMs: number = FINAL_DEADLINE_MS): Promise<void> {
    this.#flushing++;
    // A call already waiting for the channel carries the final payload once it goes: hurry it.
    this.#waiting?.hurry();
    try {
      await this.#flushLoop(deadlineMs);
    } finally {
      this.#flushing--;
    }
  }

  async #flushLoop(deadlineMs: number): Promise<void> {
    const failuresBefore = this.#failures;
    const giveUpAt = this.#clock.now() + deadlineMs;
    while (!this.#disposed) {
      if (this.#inFlight) {
        await this.#inFlight;
        continue;
      }
      if (!this.#hasUnsent()) return;
      if (this.#failures > failuresBefore && !this.#worthRetrying(failuresBefore, giveUpAt)) {
        this.#report('onGiveUp', this.#lastError);
        return;
      }
      const wait = this.#finalWaitMs();
      if (wait > 0) {
        await new Promise<void>((resolve) => this.#clock.setTimeout(resolve, wait));
        continue; // a timer may have started the call meanwhile: look again
      }
      this.#clearTimer();
      this.#start();
    }
  }

  #worthRetrying(failuresBefore: number, giveUpAt: number): boolean {
    if (!this.#lastCallFailed) return true;
    const kind = deliveryKindOf(this.#lastError);
    if (kind === undefined) return this.#failures - failuresBefore < MAX_UNCLASSIFIED_FAILURES;
    return isRetryable(this.#lastError) && this.#clock.now() + this.#finalWaitMs() <= giveUpAt;
  }

  /**
   * Stops scheduled sends (a call in flight still finishes; one still waiting for the channel is
   * not made). Later `set`s are ignored.
   */
  dispose(): void {
    this.#disposed = true;
    this.#clearTimer();
    this.#waiting?.withdraw();
  }

  #hasUnsent(): boolean {
    return this.#latest !== undefined && this.#latest.key !== this.#sentKey;
  }

  #schedule(): void {
    // One call at a time: the call in flight reschedules when it ends.
    if (this.#disposed || this.#inFlight || this.#timer !== undefined || this.#refreshing) return;
    if (!this.#hasUnsent()) {
      this.#expedited = false; // nothing to send: `setNow` does not carry over to a later change
      return;
    }
    const wait = this.#waitMs();
    if (wait <= 0) {
      this.#start();
      return;
    }
    this.#timerAt = this.#clock.now() + wait;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      this.#schedule();
    }, wait);
  }

  /**
   * How long the next call must wait: the interval (and the payload's hold), or only a server's
   * delay when expedited.
   */
  #waitMs(): number {
    if (this.#expedited) return this.#serverAllowsAt - this.#clock.now();
    const hold = this.#opts.hold && this.#latest && this.#posted ? this.#opts.hold(this.#latest.payload) : 0;
    return Math.max(this.#nextAllowedAt, this.#lastEndAt + hold) - this.#clock.now();
  }

  /**
   * How long `flush` waits before sending the final payload: not the interval (Scout's own pace for
   * intermediate frames), only what a failure asked for — a server's delay, an outage's backoff.
   */
  #finalWaitMs(): number {
    return (this.#lastCallFailed ? this.#nextAllowedAt : this.#serverAllowsAt) - this.#clock.now();
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  /**
   * Lets `refresh` bring the latest payload up to date; it never breaks the call. It never runs
   * inside itself: `#start` skips it while it runs, and `#paced` calls it only after awaiting a slot.
   */
  #refresh(): void {
    if (!this.#opts.refresh) return;
    this.#refreshing = true;
    try {
      this.#opts.refresh();
    } catch {
      // A render that throws leaves the payload as it was: the call goes with that.
    } finally {
      this.#refreshing = false;
    }
  }

  #start(): void {
    // A paced call brings its payload up to date once it has its slot (in #paced).
    if (!this.#opts.pace && !this.#refreshing) {
      this.#refresh();
      // What the refresh did may leave nothing to do here: a call it started (a flush), the editor
      // disposed, or a payload the platform already shows.
      if (this.#inFlight || this.#disposed || !this.#hasUnsent()) return;
    }
    const latest = this.#latest;
    if (!latest) return;
    this.#expedited = false;
    const call = this.#opts.pace ? this.#paced() : this.#call(latest);
    const inFlight = call.finally(() => {
      this.#inFlight = undefined;
    });
    this.#inFlight = inFlight;
    // Reschedule once the call has fully settled (after `finally` cleared `#inFlight`).
    // After a plain failure the same payload is not retried on its own (a deleted message would
    // fail forever); a newer payload, a rate limit's delay or `flush` sends again.
    void inFlight.then((sent) => {
      if (sent === undefined) return this.#schedule(); // no call was made
      const newer = this.#latest !== undefined && this.#latest.key !== sent;
      if (!this.#lastCallFailed || this.#rateLimitedRetry || newer) this.#schedule();
      else if (isRetryable(this.#lastError) && this.#retryStreak <= 8) this.#schedule();
    });
  }

  /**
   * One call in a slot of the channel's pacer; the payload is read once the slot is granted, so
   * what changed while it waited goes in this call. Resolves with the key sent, or undefined when
   * no call was made (disposed meanwhile, or the latest payload is what the platform shows).
   */
  async #paced(): Promise<string | undefined> {
    const request = this.#opts.pace?.(this.#posted ? 'edit' : 'post', this.#flushing > 0);
    let slot: PaceSlot | undefined;
    if (request) {
      this.#waiting = request;
      try {
        slot = await request.slot;
      } finally {
        this.#waiting = undefined;
      }
    }
    if (!this.#disposed) this.#refresh();
    const latest = this.#latest;
    if (this.#disposed || !latest || latest.key === this.#sentKey) {
      slot?.cancel();
      return undefined;
    }
    try {
      return await this.#call(latest);
    } finally {
      slot?.done();
    }
  }

  /** One call with `latest`; resolves (never rejects) with its key once it landed or failed. */
  async #call(latest: { payload: P; key: string }): Promise<string> {
    try {
      if (this.#posted) {
        await this.#opts.edit(this.#ref as R, latest.payload);
      } else {
        this.#ref = await this.#opts.post(latest.payload);
        this.#posted = true;
      }
      this.#sentKey = latest.key;
      this.#lastCallFailed = false;
      this.#rateLimitedRetry = false;
      this.#retryStreak = 0;
      this.#lastError = undefined;
      this.#lastEndAt = this.#clock.now();
      this.#nextAllowedAt = this.#lastEndAt + this.#opts.intervalMs;
    } catch (error) {
      this.#lastCallFailed = true;
      this.#lastError = error;
      this.#failures++;
      const retryAfter = retryAfterMsOf(error);
      this.#rateLimitedRetry = retryAfter !== undefined;
      // Outages back off (doubling from the interval); a rate limit waits what the server asked.
      const backoff = deliveryKindOf(error) === 'retryable' ? this.#backoffMs() : 0;
      this.#nextAllowedAt = this.#clock.now() + Math.max(this.#opts.intervalMs, retryAfter ?? 0, backoff);
      if (retryAfter !== undefined) this.#serverAllowsAt = this.#clock.now() + retryAfter;
      this.#report('onError', error);
    }
    return latest.key;
  }

  #backoffMs(): number {
    this.#retryStreak++;
    return Math.min(MAX_BACKOFF_MS, this.#opts.intervalMs * 2 ** (this.#retryStreak - 1));
  }

  #report(which: 'onError' | 'onGiveUp', error: unknown): void {
    try {
      this.#opts[which]?.(error, this.#posted ? 'edit' : 'post');
    } catch {
      // An error reporter that throws must not break the editor.
    }
  }
}
