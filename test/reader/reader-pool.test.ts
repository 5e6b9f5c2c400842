/**
 * The reader's worker pool as fetch_url uses it (through readForModel): a page that overruns its
 * time limit is refused and its worker replaced, so the next page still reads; a stopped turn stops
 * its page; several pages read at once come back each with its own text. The limit is the worker's
 * CPU time from when it takes the page: waiting in the queue behind slow pages, or for a core, does
 * not count.
 */
import { readlinkSync } from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readForModel } from '../../src/reader/read-document.js';
import { linuxThreadCpuMs, ReaderPool, ReadTimeoutError } from '../../src/reader/reader-pool.js';

const pool = new ReaderPool(2);
afterAll(() => pool.close());

const page = (title: string, words: number) =>
  Buffer.from(
    `<html><head><title>${title}</title></head><body><article><h1>${title}</h1>${Array.from(
      { length: Math.ceil(words / 20) },
      (_, i) =>
        `<p>${title} paragraph ${i} says something about ${title} with enough words to be read as prose here.</p>`,
    ).join('')}</article></body></html>`,
  );
const input = (title: string, words = 400) => ({
  body: page(title, words),
  contentType: 'text/html',
  url: `https://example.test/${title}`,
});

describe('reader pool', () => {
  it('refuses a page past its time limit, then reads the next page with a fresh worker', async () => {
    await expect(
      readForModel(input('slowpoke', 40_000), { maxChars: 8_000, pool, limitMs: 1 }),
    ).rejects.toBeInstanceOf(ReadTimeoutError);
    const next = await readForModel(input('afterwards'), { maxChars: 8_000, pool });
    expect(next.title).toBe('afterwards');
    expect(next.selection.text).toContain('afterwards paragraph 3');
  });

  it('stops a page when the turn is stopped', async () => {
    const stop = new AbortController();
    const reading = readForModel(input('stopped', 40_000), { maxChars: 8_000, pool, signal: stop.signal });
    stop.abort(new Error('Stop pressed'));
    await expect(reading).rejects.toThrow('Stop pressed');
  });

  it('reads many pages at once, each with its own text', async () => {
    const titles = Array.from({ length: 8 }, (_, i) => `page${i}`);
    const results = await Promise.all(titles.map((t) => readForModel(input(t), { maxChars: 8_000, pool })));
    expect(results.map((r) => r.title)).toEqual(titles);
    for (const [i, r] of results.entries()) expect(r.selection.text).toContain(`page${i} paragraph 0`);
  });

  it('reads a page queued behind slow pages on every worker: the wait does not count', async () => {
    const one = new ReaderPool(1);
    try {
      const slow = [1, 2].map((i) =>
        readForModel(input(`slow${i}`, 20_000), { maxChars: 8_000, pool: one, limitMs: 60_000 }),
      );
      // Its limit is far less than the two slow pages ahead of it on the only worker take (each
      // builds a DOM of a thousand paragraphs); it counts from when the worker takes it.
      const quick = await readForModel(input('quick'), { maxChars: 8_000, pool: one, limitMs: 100 });
      expect(quick.selection.text).toContain('quick paragraph 3');
      await Promise.all(slow);
    } finally {
      await one.close();
    }
  });

  it('says when a worker takes a queued page: when the page ahead of it is done, not when it was queued', async () => {
    const one = new ReaderPool(1);
    try {
      const events: string[] = [];
      const read = (title: string) =>
        readForModel(input(title), {
          maxChars: 8_000,
          pool: one,
          whileQueued: () => {
            events.push(`${title} queued`);
            return () => events.push(`${title} taken`);
          },
        }).then(() => events.push(`${title} read`));
      await Promise.all([read('first'), read('second')]);
      // The second waits while the only worker reads the first (it is taken when the worker is done,
      // in the same turn as the first's result arrives).
      expect(events.filter((e) => !e.endsWith('read'))).toEqual([
        'first queued',
        'second queued',
        'first taken',
        'second taken',
      ]);
      expect(events.at(-1)).toBe('second read');
    } finally {
      await one.close();
    }
  });

  it("counts the worker's CPU time, not the wall clock: a page on a starved worker is still read", async () => {
    // A clock that says the worker never got a core: however long the page takes, no CPU was spent.
    const starved = new ReaderPool(1, { cpuClock: () => 0, wallLimitFactor: 1e6 });
    try {
      const read = await readForModel(input('starved', 20_000), {
        maxChars: 8_000,
        pool: starved,
        limitMs: 1,
      });
      expect(read.selection.text).toContain('starved paragraph 3');
    } finally {
      await starved.close();
    }
  });

  it('still gives up on a worker past the wall-clock bound, whatever its CPU clock says', async () => {
    const stuck = new ReaderPool(1, { cpuClock: () => 0 });
    try {
      await expect(
        readForModel(input('stuck', 40_000), { maxChars: 8_000, pool: stuck, limitMs: 1 }),
      ).rejects.toBeInstanceOf(ReadTimeoutError);
    } finally {
      await stuck.close();
    }
  });

  it.runIf(process.platform === 'linux')("times the worker's own thread, not this one", async () => {
    const seen: Array<number | undefined> = [];
    const own = new ReaderPool(1, {
      cpuClock: (tid) => {
        const ms = linuxThreadCpuMs(tid);
        seen.push(ms === undefined ? undefined : tid);
        return ms;
      },
    });
    try {
      await readForModel(input('timed'), { maxChars: 8_000, pool: own });
      const self = Number(readlinkSync('/proc/thread-self').split('/').pop());
      expect(seen.length).toBeGreaterThan(0);
      for (const tid of seen) {
        expect(tid).toBeTypeOf('number');
        expect(tid).not.toBe(self);
      }
    } finally {
      await own.close();
    }
  });

  it.runIf(process.platform === 'linux')("reads this platform's thread CPU clock", () => {
    const self = Number(readlinkSync('/proc/thread-self').split('/').pop());
    const before = linuxThreadCpuMs(self) as number;
    let x = 0;
    for (let i = 0; i < 2e7; i++) x += i % 7;
    expect(x).toBeGreaterThan(0);
    expect(linuxThreadCpuMs(self)).toBeGreaterThan(before);
  });
  it('decodes pages in the worker, not on the main thread, and leaves the caller its bytes', async () => {
    // windows-1252 (decoded by hand for Node 20) and Shift_JIS (TextDecoder): both paths.
    const latin = Buffer.from(
      `<html><head><meta charset="windows-1252"><title>Caf\xe9</title></head><body><article>${'<p>Caf\xe9 \x93cr\xe8me\x94 costs \x805 in the old town, said the owner of the place.</p>'.repeat(12)}</article></body></html>`,
      'latin1',
    );
    const japanese = Buffer.concat([
      Buffer.from('<html><head><meta charset="shift_jis"><title>'),
      Buffer.from([0x93, 0xfa, 0x96, 0x7b]), // 日本
      Buffer.from(
        `</title></head><body><article>${'<p>Tokyo station opens a new line for the city today.</p>'.repeat(12)}</article></body></html>`,
      ),
    ]);
    // Node's TextDecoder and Buffer.toString('latin1') on this thread: a page decoded here uses one.
    const decode = vi.spyOn(TextDecoder.prototype, 'decode');
    const latin1 = vi.spyOn(Buffer.prototype, 'toString');
    try {
      const [one, two] = await Promise.all([
        readForModel(
          { body: latin, contentType: 'text/html', url: 'https://example.test/cafe' },
          { maxChars: 8_000, pool },
        ),
        readForModel(
          { body: japanese, contentType: 'text/html', url: 'https://example.test/jp' },
          { maxChars: 8_000, pool },
        ),
      ]);
      expect(one.title).toBe('Café');
      expect(one.selection.text).toContain('Café “crème” costs €5');
      expect(two.title).toBe('日本');
      expect(decode).not.toHaveBeenCalled();
      // (The pool reads its workers' CPU clocks from /proc as latin1 too: small buffers.)
      expect(
        latin1.mock.calls.filter(
          ([encoding], call) => encoding === 'latin1' && (latin1.mock.contexts[call] as Buffer).length >= 512,
        ),
      ).toEqual([]);
    } finally {
      decode.mockRestore();
      latin1.mockRestore();
    }
    // The bytes went to the worker as a copy: the caller's are still whole.
    expect(latin.toString('latin1')).toContain('Caf\xe9');
    expect(japanese.byteLength).toBeGreaterThan(100);
  });
});
