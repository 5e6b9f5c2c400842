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
      const timer = setTimeout(wake, ms);
      this.#wakers.add(wake);
    });
  }
  wakeAll(): void {
    for (const wake of [...this.#wakers]) wake();
  }
}
