/**
 * Trace and span ids for the recorded spans (recorded-spans.ts): random, cut from a pool of random
 * hex filled 4 KiB at a time. The trace thread hands each to the SDK as the span's own.
 *
 * Why a pool: the SDK's own generator draws four `Math.random()`s, writes them into a buffer and
 * hex-encodes it for every id. Timed inside a running bot (scenario 17), that took 6.6 µs an id:
 * code that runs ten times a turn is never in the CPU's caches. A cut from the pool is a substring.
 */
import { randomFillSync } from 'node:crypto';

/** Random bytes drawn at a time (one hex string of twice as many characters). */
const POOL_BYTES = 4096;
const ZEROS = /^0+$/;

export class SpanIds {
  readonly #bytes = Buffer.allocUnsafeSlow(POOL_BYTES);
  #hex = '';
  #at = 0;

  generateTraceId(): string {
    return this.#cut(32);
  }

  generateSpanId(): string {
    return this.#cut(16);
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
