/**
 * The one place edit throttling lives. A `ThrottledEditor` owns ONE platform message: the first
 * `set` posts it at once, later `set`s are coalesced (last write wins) into at most one edit per
 * interval, scheduled only after the previous call finished, and `flush` makes the final content
 * land. Same shape as Vercel Chat SDK's fallback stream (`thread.ts`): post once, edit after the
 * last edit finished, always a final edit.
 */

/** The timer functions the editor uses; injectable so tests never wait for real time. */
export interface EditorClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: EditorClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

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
}

/** Attempts `flush` makes before giving up on a payload that keeps failing (it never throws). */
const MAX_FLUSH_FAILURES = 3;

/**
 * The delay a rate-limited platform asked for. Adapters map their 429s to an error carrying
 * `retryAfterMs` (Slack `Retry-After`, Discord `retry_after`).
 */
export function retryAfterMsOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value = (error as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

export class ThrottledEditor<P, R = unknown> {
  readonly #opts: ThrottledEditorOptions<P, R>;
  readonly #clock: EditorClock;
  readonly #key: (payload: P) => string;
  #ref: R | undefined;
  #posted = false;
  #latest: { payload: P; key: string } | undefined;
  #sentKey: string | undefined;
  #inFlight: Promise<void> | undefined;
  #timer: unknown;
  /** Earliest time the next call may start (end of the last call + interval, or a server's delay). */
  #nextAllowedAt = Number.NEGATIVE_INFINITY;
  /** Earliest time a server's rate-limit answer allows the next call (`setNow` never skips it). */
  #serverAllowsAt = Number.NEGATIVE_INFINITY;
  /** The next call skips the interval once (see `setNow`). */
  #expedited = false;
  #lastCallFailed = false;
  /** Failed calls so far (flush counts its own to know when to give up). */
  #failures = 0;
  /** The last failure was a rate limit: the same payload is retried after the server's delay. */
  #rateLimitedRetry = false;
  #disposed = false;

  constructor(options: ThrottledEditorOptions<P, R>) {
    this.#opts = options;
    this.#clock = options.clock ?? systemClock;
    this.#key = options.key ?? ((payload) => JSON.stringify(payload));
  }

  /** The platform reference once the post succeeded. */
  get ref(): R | undefined {
    return this.#ref;
  }

  /** True once the message exists on the platform. */
  get posted(): boolean {
    return this.#posted;
  }

  /** Sets the content the message should show. Returns at once; the editor decides when to send. */
  set(payload: P): void {
    if (this.#disposed) return;
    this.#latest = { payload, key: this.#key(payload) };
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
   * differs from what was last sent (respecting the interval and any server delay). Retries a
   * failing final call a few times; never throws.
   */
  async flush(): Promise<void> {
    const failuresBefore = this.#failures;
    while (!this.#disposed) {
      if (this.#inFlight) {
        await this.#inFlight;
        continue;
      }
      if (!this.#hasUnsent() || this.#failures - failuresBefore >= MAX_FLUSH_FAILURES) return;
      const wait = this.#waitMs();
      if (wait > 0) {
        await new Promise<void>((resolve) => this.#clock.setTimeout(resolve, wait));
        continue; // a timer may have started the call meanwhile: look again
      }
      this.#clearTimer();
      this.#start();
    }
  }

  /** Stops scheduled sends (a call in flight still finishes). Later `set`s are ignored. */
  dispose(): void {
    this.#disposed = true;
    this.#clearTimer();
  }

  #hasUnsent(): boolean {
    return this.#latest !== undefined && this.#latest.key !== this.#sentKey;
  }

  #schedule(): void {
    // One call at a time: the call in flight reschedules when it ends.
    if (this.#disposed || this.#inFlight || this.#timer !== undefined) return;
    if (!this.#hasUnsent()) {
      this.#expedited = false; // nothing to send: `setNow` does not carry over to a later change
      return;
    }
    const wait = this.#waitMs();
    if (wait <= 0) {
      this.#start();
      return;
    }
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#schedule();
    }, wait);
  }

  /** How long the next call must wait: the interval, or only a server's delay when expedited. */
  #waitMs(): number {
    return (this.#expedited ? this.#serverAllowsAt : this.#nextAllowedAt) - this.#clock.now();
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #start(): void {
    const latest = this.#latest;
    if (!latest) return;
    this.#expedited = false;
    this.#inFlight = this.#call(latest).finally(() => {
      this.#inFlight = undefined;
    });
    // Reschedule once the call has fully settled (after `finally` cleared `#inFlight`).
    // After a plain failure the same payload is not retried on its own (a deleted message would
    // fail forever); a newer payload, a rate limit's delay or `flush` sends again.
    void this.#inFlight.then(() => {
      const newer = this.#latest !== undefined && this.#latest.key !== latest.key;
      if (!this.#lastCallFailed || this.#rateLimitedRetry || newer) this.#schedule();
    });
  }

  async #call(latest: { payload: P; key: string }): Promise<void> {
    const kind = this.#posted ? 'edit' : 'post';
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
      this.#nextAllowedAt = this.#clock.now() + this.#opts.intervalMs;
    } catch (error) {
      this.#lastCallFailed = true;
      this.#failures++;
      const retryAfter = retryAfterMsOf(error);
      this.#rateLimitedRetry = retryAfter !== undefined;
      this.#nextAllowedAt = this.#clock.now() + Math.max(this.#opts.intervalMs, retryAfter ?? 0);
      if (retryAfter !== undefined) this.#serverAllowsAt = this.#clock.now() + retryAfter;
      try {
        this.#opts.onError?.(error, kind);
      } catch {
        // An error reporter that throws must not break the editor.
      }
    }
  }
}
