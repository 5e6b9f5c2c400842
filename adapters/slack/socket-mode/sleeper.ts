import { timerDelay } from '../../../src/timer-delay.js';

/** Sleeps that stop() can cut short, leaving no timer behind. */
export class Sleeper {
  readonly #wakers = new Set<() => void>();
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#wakers.delete(wake);
        resolve();
      };
      // Slack's Retry-After can exceed what a timer holds: cut, it would fire at once.
      const timer = setTimeout(wake, timerDelay(ms));
      this.#wakers.add(wake);
    });
  }
  wakeAll(): void {
    for (const wake of [...this.#wakers]) wake();
  }
}
