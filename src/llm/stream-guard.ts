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
  private readonly idleTimer: NodeJS.Timeout;
  private readonly totalTimer: NodeJS.Timeout;
  private readonly onCallerAbort = () => this.controller.abort(this.options.signal?.reason);
  /** Set when the guard (not the caller) aborted: 'idle' or 'total'. */
  timedOut: 'idle' | 'total' | undefined;

  constructor(private readonly options: StreamGuardOptions) {
    this.totalTimer = setTimeout(() => this.expire('total'), options.maxStreamMs);
    this.idleTimer = setTimeout(() => this.expire('idle'), options.idleTimeoutMs);
    if (options.signal?.aborted) this.controller.abort(options.signal.reason);
    else options.signal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cancelledByCaller(): boolean {
    return this.options.signal?.aborted === true;
  }

  /**
   * Call on every chunk: the server is alive. Restarts the one idle timer in place (a stream has
   * hundreds of chunks; a new timer per chunk is measurable work at load).
   */
  touch = (): void => {
    this.idleTimer.refresh();
  };

  /** Stops the timers and releases the connection (a no-op after a finished stream). */
  dispose(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.totalTimer);
    this.options.signal?.removeEventListener('abort', this.onCallerAbort);
    if (!this.controller.signal.aborted) this.controller.abort(DISPOSED);
  }

  private expire(kind: 'idle' | 'total'): void {
    if (this.controller.signal.aborted) return;
    this.timedOut = kind;
    this.controller.abort(new Error(`stream ${kind} timeout`));
  }
}
