/**
 * `--read`'s runRead as main() calls it, with the process exiting right after it resolves: it resolves
 * only once what it wrote has left the process. Writes to a pipe that is read slowly (`--read … | less`,
 * a program reading the output) are queued in the process, and an exit while some are queued loses the
 * end of the output — a thousand pages into a pipe printed 936 of their headers.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runRead } from '../../src/cli/read-command.js';
import { PAGES_DIR } from '../reader/page-fixtures.js';

/** As process.stdout into a full pipe: it takes the text, and says it is written when the reader drains it. */
class SlowPipe {
  text = '';
  private readonly queued: Array<() => void> = [];
  private reading = false;
  write(text: string, done?: () => void): boolean {
    this.text += text;
    if (done && this.reading) queueMicrotask(done);
    else if (done) this.queued.push(done);
    return this.reading;
  }
  /** The reader catches up: what was queued is written, and so is what comes next. */
  drain(): void {
    this.reading = true;
    for (const done of this.queued.splice(0)) done();
  }
}

const page = (file: string) => join(PAGES_DIR, file);

describe('--read into a pipe', { timeout: 60_000 }, () => {
  it('returns only when the pipe has taken all it printed', async () => {
    const stdout = new SlowPipe();
    const stderr = new SlowPipe();
    const targets = [page('product-kettle.html'), page('long-cable-ships.html'), 'no-such-page.html'];
    let code: number | undefined;
    const reading = runRead({ targets }, stdout, stderr).then((c) => {
      code = c;
    });
    // Everything is printed…
    await vi.waitFor(() => expect(stderr.text).toContain('Could not read no-such-page.html'), {
      timeout: 50_000,
    });
    expect(stdout.text).toContain(`==> ${page('long-cable-ships.html')} <==`);
    await new Promise((resolve) => setImmediate(resolve));
    // …but still queued: an exit now would lose it.
    expect(code).toBeUndefined();
    stdout.drain();
    stderr.drain();
    await reading;
    expect(code).toBe(1);
  });
});
