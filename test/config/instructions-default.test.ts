/**
 * SCOUT_INSTRUCTIONS / SCOUT_INSTRUCTIONS_FILE: the default operator instructions, checked at
 * start-up with one problem line naming the variable — never its value or the file's path.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/env.js';
import { MAX_INSTRUCTIONS_CHARS } from '../../src/prompts/operator-instructions.js';

const base = { DEEPSEEK_API_KEY: 'sk-deepseek-secret', LOG_LEVEL: 'silent' };
const dir = mkdtempSync(path.join(tmpdir(), 'scout-instructions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const full = path.join(dir, name);
  writeFileSync(full, text);
  return full;
}

describe('default instructions from the environment', () => {
  it('SCOUT_INSTRUCTIONS is the default, cleaned of control bytes', () => {
    const { config, problems } = checkConfig({ ...base, SCOUT_INSTRUCTIONS: 'Answer in German.\u0007' });
    expect(problems).toEqual([]);
    expect(config?.instructions).toBe('Answer in German.');
    expect(checkConfig(base).config?.instructions).toBeUndefined();
  });

  it('SCOUT_INSTRUCTIONS_FILE reads a UTF-8 file, newlines kept', () => {
    const { config, problems } = checkConfig({
      ...base,
      SCOUT_INSTRUCTIONS_FILE: file(
        'ok.md',
        '# Support channel\r\nOur product is Acme Cloud.\n用中文回答。\n',
      ),
    });
    expect(problems).toEqual([]);
    expect(config?.instructions).toBe('# Support channel\nOur product is Acme Cloud.\n用中文回答。');
  });

  it('a missing file, a directory, or both variables set: one line naming the variable', () => {
    const secretPath = path.join(dir, 'sk-LEAKED0123456789abcdef.md');
    expect(checkConfig({ ...base, SCOUT_INSTRUCTIONS_FILE: secretPath }).problems).toEqual([
      'SCOUT_INSTRUCTIONS_FILE: the file does not exist',
    ]);
    // A path through a file: readable by nobody, root included.
    expect(
      checkConfig({ ...base, SCOUT_INSTRUCTIONS_FILE: path.join(file('plain.md', 'x'), 'more.md') }).problems,
    ).toEqual(['SCOUT_INSTRUCTIONS_FILE: the file cannot be read (ENOTDIR)']);
    expect(checkConfig({ ...base, SCOUT_INSTRUCTIONS_FILE: dir }).problems).toEqual([
      'SCOUT_INSTRUCTIONS_FILE: not a file (a directory?)',
    ]);
    expect(
      checkConfig({ ...base, SCOUT_INSTRUCTIONS: 'a', SCOUT_INSTRUCTIONS_FILE: file('b.md', 'b') }).problems,
    ).toEqual(['SCOUT_INSTRUCTIONS and SCOUT_INSTRUCTIONS_FILE: set one of them, not both']);
  });

  it.skipIf(process.getuid?.() === 0)('an unreadable file is a start-up error naming the variable', () => {
    const locked = file('locked.md', 'Be brief.');
    chmodSync(locked, 0o000);
    expect(checkConfig({ ...base, SCOUT_INSTRUCTIONS_FILE: locked }).problems).toEqual([
      'SCOUT_INSTRUCTIONS_FILE: the file cannot be read (EACCES)',
    ]);
  });

  it('too long is an error, not a silently shorter prompt', () => {
    const long = 'x'.repeat(MAX_INSTRUCTIONS_CHARS + 1);
    expect(checkConfig({ ...base, SCOUT_INSTRUCTIONS: long }).problems).toEqual([
      'SCOUT_INSTRUCTIONS: longer than 4,000 characters (4,001); shorten it',
    ]);
    expect(checkConfig({ ...base, SCOUT_INSTRUCTIONS_FILE: file('long.md', long) }).problems).toEqual([
      'SCOUT_INSTRUCTIONS_FILE: longer than 4,000 characters (4,001); shorten it',
    ]);
    // A huge file is refused by its size, without reading it.
    expect(
      checkConfig({ ...base, SCOUT_INSTRUCTIONS_FILE: file('huge.md', 'y'.repeat(1_000_000)) }).problems,
    ).toEqual(['SCOUT_INSTRUCTIONS_FILE: longer than 4,000 characters; shorten it']);
    // Exactly the limit fits.
    expect(checkConfig({ ...base, SCOUT_INSTRUCTIONS: long.slice(1) }).problems).toEqual([]);
  });

  it('an API key in the default is refused without being echoed', () => {
    const problems = checkConfig({ ...base, SCOUT_INSTRUCTIONS: 'Use sk-LEAKED0123456789abcdef' }).problems;
    expect(problems).toEqual([
      'SCOUT_INSTRUCTIONS: looks like it holds an API key or token; /config shows the instructions',
    ]);
  });
});
