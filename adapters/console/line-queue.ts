/**
 * The terminal's input as a queue: every line typed or piped is kept, in order, until the chat loop
 * takes it. Lines that arrive while a turn runs (typed ahead, or the rest of a piped script) wait
 * here instead of being lost.
 */
export interface QueuedLine {
  text: string;
  /** Arrived while a turn was running (typed ahead): the prompt never echoed it. */
  typedAhead: boolean;
}

export class LineQueue {
  private readonly lines: QueuedLine[] = [];
  private waiter: ((line: QueuedLine | undefined) => void) | undefined;
  private ended = false;

  get size(): number {
    return this.lines.length;
  }

  push(line: QueuedLine): void {
    if (this.ended) return;
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) waiter(line);
    else this.lines.push(line);
  }

  /** No more input (EOF, Ctrl-D, quit): `next()` drains what is queued, then yields undefined. */
  end(): void {
    this.ended = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(undefined);
  }

  /**
   * The next line, waiting for one; undefined once input has ended and the queue is empty. An abort
   * rejects and withdraws the wait, so the line that comes later stays queued for the next taker.
   */
  next(signal?: AbortSignal): Promise<QueuedLine | undefined> {
    const line = this.lines.shift();
    if (line) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(undefined);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (this.waiter === take) this.waiter = undefined;
        reject(signal?.reason);
      };
      const take = (taken: QueuedLine | undefined) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(taken);
      };
      this.waiter = take;
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
