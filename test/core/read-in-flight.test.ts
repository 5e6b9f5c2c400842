/**
 * `--read` over many documents holds only some of them at once. READ_IN_FLIGHT are read at a time,
 * the next as one is done; and since output keeps the order given, none is opened READ_AHEAD or more
 * past the last one printed. Started all together, a thousand pages held all their bytes at once
 * (1.3-1.4 GB); without the second bound, one slow first document let every document behind it be
 * read and held until it was printed. Seen from outside as a user would: files that appear only once
 * the first document is printed are still read, as they would not be if they had been opened before.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { READ_AHEAD, runRead } from '../../src/cli/read-command.js';
import { PAGES_DIR } from '../reader/page-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'scout-read-in-flight-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A long page (tens of milliseconds to read) ahead of short notes (a millisecond or two each). */
const slow = join(dir, 'page-0.html');
const paragraph = `<p>${'The kettle boils a litre of water in under four minutes on the lowest setting. '.repeat(8)}</p>`;
writeFileSync(slow, `<!doctype html><title>Long</title><article>${paragraph.repeat(2_000)}</article>`);
const quick = join(PAGES_DIR, 'product-kettle.html');

describe('--read over many documents', { timeout: 120_000 }, () => {
  it(`opens none ${READ_AHEAD} or more past the last one printed, however slow the first`, async () => {
    const note = (i: number) => join(dir, `note-${i}.txt`);
    const present = [slow, ...Array.from({ length: READ_AHEAD - 1 }, (_, i) => note(i + 1))];
    const late = Array.from({ length: 4 }, (_, i) => note(READ_AHEAD + i));
    for (const target of present.slice(1)) writeFileSync(target, 'Descale the kettle monthly.\n');
    let printed = '';
    const stdout = {
      write(text: string, done?: () => void) {
        // The first document is out: the late files appear now, before any of them was due.
        if (printed === '') for (const target of late) copyFileSync(quick, target);
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
    const targets = [...present, ...late];
    const code = await runRead({ targets }, stdout, stderr);
    expect(errors).toBe('');
    expect(code).toBe(0);
    for (const target of targets) expect(printed).toContain(`==> ${target} <==`);
    expect(printed).toContain('boils a litre of water');
  });
});
