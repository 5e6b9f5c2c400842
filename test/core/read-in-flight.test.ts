/**
 * `--read` over many documents holds only READ_IN_FLIGHT of them at once: the next file is opened
 * when one of those is done, not at the start. Started all together, a thousand pages held all their
 * bytes at once (1.3-1.4 GB). Seen from outside as a user would: files that appear only once the
 * first document is printed are still read, as they would not be if every file were opened at once.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { READ_IN_FLIGHT, runRead } from '../../src/cli/read-command.js';
import { PAGES_DIR } from '../reader/page-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'scout-read-in-flight-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const source = join(PAGES_DIR, 'product-kettle.html');

describe('--read over many documents', { timeout: 120_000 }, () => {
  it(`opens at most ${READ_IN_FLIGHT} at a time, the next as one is done`, async () => {
    // Well past the window (the pool's two workers finish a few before the first is printed).
    const present = READ_IN_FLIGHT + 8;
    const late = 4;
    const targets = Array.from({ length: present + late }, (_, i) => join(dir, `page-${i}.html`));
    for (const target of targets.slice(0, present)) copyFileSync(source, target);
    let printed = '';
    const stdout = {
      write(text: string, done?: () => void) {
        // The first document is out: the late files appear now, before any of them was due.
        if (printed === '') for (const target of targets.slice(present)) copyFileSync(source, target);
        printed += text;
        done?.();
        return true;
      },
    };
    let errors = '';
    const stderr = {
      write(text: string, done?: () => void) {
        errors += text;
        done?.();
        return true;
      },
    };
    const code = await runRead({ targets }, stdout, stderr);
    expect(errors).toBe('');
    expect(code).toBe(0);
    for (const target of targets) expect(printed).toContain(`==> ${target} <==`);
  });
});
