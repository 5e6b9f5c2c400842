/**
 * `/instructions` in the terminal chat: typed at the prompt, they set the local chat's instructions
 * (its one channel, `console:local`), which the next question's system prompt carries;
 * `/instructions` and `/config` show them, worded for the terminal.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONSOLE_CHANNEL_ID } from '../../adapters/console/console-surface.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { pipedTerminalChat } from '../helpers/piped-terminal.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';

/** Pipes `lines` into a terminal chat and resolves with everything it printed once it exits. */
async function chat(h: TestScout, lines: string[]): Promise<string> {
  return (await pipedTerminalChat(h, lines, 'console:instructions')).printed;
}

describe('terminal /instructions', () => {
  let h: TestScout;
  beforeEach(async () => {
    h = await startTestScout();
  });
  afterEach(async () => {
    await h.close();
  });

  it('sets the terminal chat’s instructions, shows them, and the next question’s system prompt carries them', async () => {
    h.llm.enqueue(textReply('Bonjour !'));
    const printed = await chat(h, [
      '/instructions Answer in French.',
      '/instructions',
      '/config',
      'Hello?',
      '/instructions clear',
    ]);
    expect(printed).toContain('Instructions saved for this terminal chat');
    expect(printed).toContain('Instructions for this terminal chat');
    expect(printed).toContain('Answer in French.');
    expect(printed).toContain('Instructions: set here (17 characters): Answer in French.');
    expect(printed).toContain('Bonjour !');
    expect(printed).toContain('The instructions for this terminal chat were removed.');
    const body = h.llm.requests[0]?.body as { messages: Array<{ role: string; content: string }> };
    expect(body.messages[0]?.content).toContain(
      '<operator_instructions>\nAnswer in French.\n</operator_instructions>',
    );
    expect((await h.scout.getSettings(CONSOLE_CHANNEL_ID)).instructions).toBeUndefined();
  });
});
