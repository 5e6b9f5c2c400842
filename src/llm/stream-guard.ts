/**
 * Time limits for one HTTP attempt. The openai client's own timeout stops counting once headers
 * arrive, so a stream that stalls would hang forever; this guard aborts when
 * - no chunk arrives within `idleTimeoutMs` (first byte, and between chunks), or
 * - the whole stream runs past `maxStreamMs`,
 * and remembers why, so the caller can tell a timeout from the user's Stop.
 */

export interface StreamGuardOptions {
  idleTimeoutMs: number;
  maxStreamMs: number;
  /** The caller's signal (Stop button, agent time limit). */
  signal?: AbortSignal;
}

/**
 * The reason a guard aborts with when it is disposed: made once, since `abort()` without a reason
 * builds a DOMException with a stack trace for every stream (three per agent turn), and nothing
 * reads this reason (the caller's Stop and the timeouts have their own).
 */
const DISPOSED = new Error('stream guard disposed');

export class StreamGuard {
  private readonly controller = new AbortController();
  private idleTimer: NodeJS.Timeout;
  /** When the last chunk arrived (performance.now(): monotonic, unlike the wall clock). */
  private lastChunkAt = performance.now();
  private readonly totalTimer: NodeJS.Timeout;
  private readonly onCallerAbort = () => this.abort(this.options.signal?.reason);
  /** Set when the guard (not the caller) aborted: 'idle' or 'total'. */
  timedOut: 'idle' | 'total' | undefined;
  /** Set by `abort`, the only way the guard's signal is aborted. */
  #aborted = false;

  constructor(private readonly options: StreamGuardOptions) {
    this.totalTimer = setTimeout(() => this.expire('total'), options.maxStreamMs);
    this.idleTimer = setTimeout(this.checkIdle, options.idleTimeoutMs);
    if (options.signal?.aborted) this.abort(options.signal.reason);
    else options.signal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** The only way the guard's signal is aborted, so that `aborted` always says so. */
  private abort(reason: unknown): void {
    this.#aborted = true;
    this.controller.abort(reason);
  }

  /**
   * Whether the guard's signal is aborted, read from a plain field: it is asked for every streamed
   * part, and each read of `AbortSignal.aborted` brand-checks the signal (Node's
   * validateThisAbortSignal, about 1 % of a busy bot's main thread in bench scenario 6's CPU profile).
   */
  get aborted(): boolean {
    return this.#aborted;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cancelledByCaller(): boolean {
    return this.options.signal?.aborted === true;
  }

  /**
   * Call on every chunk: the server is alive. Only notes the time: the idle timer, when it fires,
   * waits out what is left of the limit since the last chunk. A stream has hundreds of chunks, and
   * restarting a timer on each (unlinking and relinking it in Node's timer lists) was measurable work
   * at load (bench scenario 6's CPU profile); reading the clock is not.
   */
  touch = (): void => {
    this.lastChunkAt = performance.now();
  };

  private readonly checkIdle = (): void => {
    const quietMs = performance.now() - this.lastChunkAt;
    // Timers run on whole milliseconds; the clock reads fractions: within 1 ms counts as reached.
    if (quietMs >= this.options.idleTimeoutMs - 1) this.expire('idle');
    else this.idleTimer = setTimeout(this.checkIdle, this.options.idleTimeoutMs - quietMs);
  };

  /** Stops the timers and releases the connection (a no-op after a finished stream). */
  dispose(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.totalTimer);
    this.options.signal?.removeEventListener('abort', this.onCallerAbort);
    if (!this.#aborted) this.abort(DISPOSED);
  }

  private expire(kind: 'idle' | 'total'): void {
    if (this.#aborted) return;
    this.timedOut = kind;
    this.abort(new Error(`stream ${kind} timeout`));
  }
}
