/**
 * Issue 58 item 4: the PDF reader slots (PDF_CONCURRENCY reader processes) are shared fairly, and a
 * reader's time limit is its own CPU time. Real readers on real PDFs; the tests hold a reader still
 * (SIGSTOP, as a machine too busy to run it would) instead of waiting for slow files, so nothing
 * depends on how fast this machine is.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { extractPdfText, type PdfResult, pdfReaderHooks } from '../../src/context/pdf-text.js';
import { readingOwner } from '../../src/context/reading-owner.js';
import { silentLogger } from '../../src/logger.js';
import { readForModel } from '../../src/reader/read-document.js';
import { ReaderPool } from '../../src/reader/reader-pool.js';
import * as z from '../../src/schema/zod.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { makePdf } from './context-kit.js';

const spawned: number[] = [];
afterEach(() => {
  pdfReaderHooks.spawned = undefined;
  for (const pid of spawned.splice(0)) resume(pid);
  vi.useRealTimers();
});

/** Lets a held reader go on (if it has not ended already). */
function resume(pid: number): void {
  try {
    process.kill(pid, 'SIGCONT');
  } catch {
    // gone already
  }
}

/** Every reader spawned from now on is recorded, and the first `stopped` of them held still. */
function holdReaders(stopped: number): void {
  let left = stopped;
  pdfReaderHooks.spawned = (pid) => {
    spawned.push(pid);
    if (left > 0) {
      left -= 1;
      process.kill(pid, 'SIGSTOP');
    }
  };
}

/** Waits, without timers (they may be fake), until `count` readers were spawned. */
async function readersSpawned(count: number): Promise<void> {
  while (spawned.length < count) await new Promise((resolve) => setImmediate(resolve));
}

const pdf = (text: string) => new Uint8Array(makePdf(text));
const textOf = (result: PdfResult) => (result.ok ? result.text : `failed: ${result.reason}`);

describe('PDF reader slots', { timeout: 30_000 }, () => {
  it('one conversation holding both slots gets the next freed one only after another conversation', async () => {
    holdReaders(2);
    // Conversation A's two PDFs take both slots (and hang, as hostile files would) …
    const a1 = extractPdfText(pdf('A one'), undefined, 'conversation-a');
    const a2 = extractPdfText(pdf('A two'), undefined, 'conversation-a');
    await readersSpawned(2);
    // … then A's third and B's first wait, A's first in line.
    const a3 = extractPdfText(pdf('A three'), undefined, 'conversation-a');
    const b1 = extractPdfText(pdf('B one'), undefined, 'conversation-b');
    // A's first reader goes on and ends: its slot goes to B, which holds none, not to A's third.
    process.kill(spawned[0]!, 'SIGCONT');
    expect(textOf(await a1)).toContain('A one');
    const first = await Promise.race([b1.then(() => 'B'), a3.then(() => 'A')]);
    expect(first).toBe('B');
    expect(textOf(await b1)).toContain('B one');
    process.kill(spawned[1]!, 'SIGCONT');
    expect(textOf(await a2)).toContain('A two');
    expect(textOf(await a3)).toContain('A three');
  });

  it('a reader kept waiting past the old 15 s wall-clock limit is not refused: its budget is its CPU time', async () => {
    holdReaders(1);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const reading = extractPdfText(pdf('Read after a wait'), undefined, 'conversation-c');
    await readersSpawned(1);
    // The machine gives the reader no CPU for 16 s of the clock: it has used almost none of its own.
    vi.advanceTimersByTime(16_000);
    process.kill(spawned[0]!, 'SIGCONT');
    expect(textOf(await reading)).toContain('Read after a wait');
  });

  it('a tool call’s readings count toward its turn’s conversation (fetch_url hands the reader only its signal)', async () => {
    let owner: string | undefined;
    const registry = createToolRegistry(
      [
        {
          name: 'probe',
          description: 'Reads nothing; says whose its readings are',
          inputSchema: z.object({}),
          run: async (_input, context) => {
            owner = readingOwner(context.signal);
            return { text: 'ok' };
          },
        },
      ],
      { logger: silentLogger },
    );
    const signal = new AbortController().signal;
    await registry.execute('probe', '{}', { sessionKey: 's', conversationId: 'conversation-d', signal });
    expect(owner).toBe('conversation-d');
  });
  it("a fetched PDF waiting for a slot says so, as fetch_url's call limit needs to stop for the wait", async () => {
    holdReaders(2);
    const held = [
      extractPdfText(pdf('Held one'), undefined, 'conversation-e'),
      extractPdfText(pdf('Held two'), undefined, 'conversation-f'),
    ];
    await readersSpawned(2);
    const pool = new ReaderPool(1);
    try {
      const waits: string[] = [];
      // fetch_url passes the registry's pauseTimeLimit here: called at a wait, its result at the end.
      const whileQueued = () => {
        waits.push('waiting');
        return () => void waits.push('taken');
      };
      const reading = readForModel(
        {
          body: pdf('Fetched report'),
          contentType: 'application/pdf',
          url: 'https://example.test/report.pdf',
        },
        { maxChars: 8_000, pool, whileQueued },
      );
      // Both slots are held: the reading waits for one, and its caller's clock is told so.
      await vi.waitFor(() => expect(waits).toEqual(['waiting']), { timeout: 5_000 });
      process.kill(spawned[0]!, 'SIGCONT');
      expect(textOf(await held[0]!)).toContain('Held one');
      const result = await reading;
      expect(result.selection.text).toContain('Fetched report');
      // The slot's wait ended before the text went on to the page reader's worker (its own wait).
      expect(waits.slice(0, 2)).toEqual(['waiting', 'taken']);
      expect(waits.filter((w) => w === 'waiting')).toHaveLength(waits.filter((w) => w === 'taken').length);
    } finally {
      for (const pid of spawned.slice(0, 2)) resume(pid);
      await Promise.all(held);
      await pool.close();
    }
  });
});
