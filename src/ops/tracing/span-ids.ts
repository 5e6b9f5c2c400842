/**
 * Trace and span ids for the SDK (its `idGenerator` option): random, cut from a pool of random hex
 * filled 4 KiB at a time, and a span id can be reserved for the next span the SDK makes.
 *
 * Why a pool: the SDK's own generator draws four `Math.random()`s, writes them into a buffer and
 * hex-encodes it for every id. Timed inside a running bot (scenario 17), that took 6.6 µs an id:
 * code that runs ten times a turn is never in the CPU's caches. A cut from the pool is a substring.
 * Why reserving: a turn's child spans are recorded first and made by the SDK when the turn ends
 * (deferred-spans.ts), but their ids are in log lines as they happen; the SDK takes the id it was
 * handed as the span's own.
 */
import { randomFillSync } from 'node:crypto';
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';

/** Random bytes drawn at a time (one hex string of twice as many characters). */
const POOL_BYTES = 4096;
const ZEROS = /^0+$/;

export class SpanIds implements IdGenerator {
  readonly #bytes = Buffer.allocUnsafeSlow(POOL_BYTES);
  #hex = '';
  #at = 0;
  #reserved: string | undefined;

  generateTraceId(): string {
    return this.#cut(32);
  }

  generateSpanId(): string {
    const reserved = this.#reserved;
    if (reserved !== undefined) {
      this.#reserved = undefined;
      return reserved;
    }
    return this.#cut(16);
  }

  /** Runs `make` (a call of the SDK that makes one span), whose span takes `spanId` (drawn earlier). */
  withReserved<T>(spanId: string, make: () => T): T {
    this.#reserved = spanId;
    try {
      return make();
    } finally {
      // Not left for the next span when the SDK made none (tracing suppressed in `make`'s context).
      this.#reserved = undefined;
    }
  }

  #cut(length: number): string {
    for (;;) {
      if (this.#at + length > this.#hex.length) {
        randomFillSync(this.#bytes);
        this.#hex = this.#bytes.toString('hex');
        this.#at = 0;
      }
      const id = this.#hex.slice(this.#at, this.#at + length);
      this.#at += length;
      // An id of all zeros is invalid (W3C Trace Context): draw another.
      if (!ZEROS.test(id)) return id;
    }
  }
}
