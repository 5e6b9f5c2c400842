/**
 * Commands typed in the terminal chat get terminal answers: no mentions, DMs or Discord threads, the
 * terminal's own /quit listed, no literal Markdown marks, and `/search` alone says where it stands.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pipedTerminalChat } from '../helpers/piped-terminal.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';

/** Pipes `lines` into a terminal chat and resolves with everything it printed once it exits. */
const chat = (h: TestScout, lines: string[]) => pipedTerminalChat(h, lines, 'console:cmds');

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

  it('an unknown command lists the very commands /help lists, /config as the terminal has it', async () => {
    const { printed } = await chat(h, ['/help', '/frobnicate']);
    // What each line typed got: the lines after its echo up to the next prompt.
    const lists = printed
      .split(/^› /m)
      .map((reply) => reply.split('\n').filter((line) => line.startsWith('• /')))
      .filter((lines) => lines.length > 0);
    expect(lists).toHaveLength(2);
    expect(lists[1]).toEqual(lists[0]);
    expect(lists[0]).toContain('• /config — Show the current settings');
    expect(lists[0]?.at(-1)).toMatch(/^• \/quit — /);
    expect(printed).toContain('Unknown command /frobnicate.');
  });

  it('/search without an argument shows whether search is on, then how to change it', async () => {
    const { printed } = await chat(h, ['/search', '/search on', '/search']);
    const states = printed.match(/Web search \(chat mode\): (on|off)/g);
    expect(states).toEqual(['Web search (chat mode): off', 'Web search (chat mode): on']);
    expect(printed).toContain('Usage: /search on|off');
  });
});
