/**
 * fetch's Headers over the lower-cased header object node:http parses (`IncomingMessage.headers`),
 * for what API clients and error classes read (get, has, entries, forEach) plus `set`. Node's own Headers class
 * lives in its bundled fetch, which a process would load (~20 ms of a cold start) only to wrap
 * headers it already has.
 */
export type RawHeaders = Record<string, string | string[] | undefined>;

export class LeanHeaders {
  readonly #raw: RawHeaders;

  /** Keeps `raw` (not copied): node:http hands over a fresh object per response. */
  constructor(raw: RawHeaders) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    const value = this.#raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.#raw[name.toLowerCase()] !== undefined;
  }

  set(name: string, value: string): void {
    this.#raw[name.toLowerCase()] = value;
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.#raw).sort()) {
      const value = this.get(name);
      if (value !== null) yield [name, value];
    }
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  forEach(fn: (value: string, name: string) => void): void {
    for (const [name, value] of this.entries()) fn(value, name);
  }
}
