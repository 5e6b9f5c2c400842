/**
 * At most one log line per interval for something that repeats on every attempt (a reconnect loop
 * failing every second): the first occurrence is written at once, later ones within the interval
 * are counted and the count rides along on the next line written.
 */
export class ThrottledLog {
  #last = Number.NEGATIVE_INFINITY;
  #suppressed = 0;

  constructor(private readonly intervalMs: number) {}

  /** Calls `write` with how many occurrences were skipped since the last line, or skips this one. */
  write(write: (suppressed: number) => void): void {
    const now = Date.now();
    if (now - this.#last < this.intervalMs) {
      this.#suppressed += 1;
      return;
    }
    this.#last = now;
    const suppressed = this.#suppressed;
    this.#suppressed = 0;
    write(suppressed);
  }

  /** After a success: the next failure is written at once again. */
  reset(): void {
    this.#last = Number.NEGATIVE_INFINITY;
    this.#suppressed = 0;
  }
}
