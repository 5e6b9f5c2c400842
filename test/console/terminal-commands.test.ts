/**
 * Commands typed in the terminal chat get terminal answers: no mentions, DMs or Discord threads, the
 * terminal's own /quit listed, no literal Markdown marks, and `/search` alone says where it stands.
 */
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleSurface } from '../../adapters/console/console-surface.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';

/** Pipes `lines` into a terminal chat and resolves with everything it printed once it exits. */
async function chat(h: TestScout, lines: string[]): Promise<{ printed: string; code: number }> {
  const input = new PassThrough();
  const output = Object.assign(new PassThrough(), { isTTY: false });
  let printed = '';
  output.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  const exited = new Promise<number>((resolve) => {
    const surface = createConsoleSurface({
      core: h.scout,
      input,
      output,
      conversation: 'console:cmds',
      onExit: resolve,
    });
    void surface.start();
  });
  input.end(`${lines.join('\n')}\n`);
  const code = await exited;
  return { printed, code };
}

describe('terminal commands', () => {
  let h: TestScout;
  beforeEach(async () => {
    h = await startTestScout();
  });
  afterEach(async () => {
    await h.close();
  });

  it('/help and /config speak of the terminal: /quit listed, no mentions, DMs, Discord or backticks', async () => {
    const { printed, code } = await chat(h, ['/help', '/config']);
    expect(code).toBe(0);
    expect(printed).toContain('/quit');
    expect(printed).toContain('type your question at the prompt');
    expect(printed).toContain('Scout configuration');
    expect(printed).toContain('Function-call model');
    for (const platformWord of ['mention', 'DM', 'Discord', 'thread'])
      expect(printed).not.toContain(platformWord);
    expect(printed).not.toContain('`');
    // Slack-style *bold* marks are dropped (a glob such as github__* stays).
    expect(printed).not.toMatch(/\*[A-Za-z][^*\n]*\*/);
  });

  it('/search without an argument shows whether search is on, then how to change it', async () => {
    const { printed } = await chat(h, ['/search', '/search on', '/search']);
    const states = printed.match(/Web search \(chat mode\): (on|off)/g);
    expect(states).toEqual(['Web search (chat mode): off', 'Web search (chat mode): on']);
    expect(printed).toContain('Usage: /search on|off');
  });
});
