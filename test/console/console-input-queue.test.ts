/**
 * The terminal chat as a person or a script really drives it: the real process, its stdin a pipe or a
 * pseudo-terminal. Every line is handled in order — lines piped in one chunk, lines sent before the
 * prompt exists and lines typed while an answer streams — and the exit code says whether every
 * question got an answer.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI, textReply } from '../helpers/fake-openai-server.js';
import { type ChatProcess, chatEnv, spawnChat } from './chat-process.js';

const PROCESS_TEST_TIMEOUT_MS = 60_000;

/** The last user message of each request the model received. */
function questionsSent(llm: FakeOpenAI): string[] {
  return llm.requests.map((r) => {
    const messages = (r.body as { messages: Array<{ role: string; content: string }> }).messages;
    return messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  });
}

/** Asserts `parts` appear in `text` in this order. */
function expectInOrder(text: string, parts: string[]): void {
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    expect(at, `"${part}" after position ${from} in:\n${text}`).toBeGreaterThanOrEqual(0);
    from = at + part.length;
  }
}

/** Terminal output without its escape sequences (colours, cursor moves). */
function plain(text: string): string {
  return text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('terminal chat input (real process)', () => {
  let llm: FakeOpenAI;
  let chat: ChatProcess | undefined;

  beforeEach(async () => {
    llm = await startFakeOpenAI();
  });
  afterEach(async () => {
    chat?.child.kill('SIGKILL');
    chat = undefined;
    await llm.close();
  });

  it(
    'piped: commands and questions, in one chunk and while a turn runs, each get their reply in order; EOF exits 0',
    async () => {
      llm.enqueue(
        textReply('Paris is the capital of France.', { chunkDelayMs: 120 }),
        textReply('Berlin is the capital of Germany.'),
      );
      chat = spawnChat(chatEnv(llm.baseUrl));
      // Both lines in one write, before the chat has even started.
      chat.write('/search off\nWhat is the capital of France?\n');
      await waitUntil(() => llm.requests.length === 1, 'the first question to reach the model');
      // Sent while the first answer streams.
      chat.write('/mode chat\nAnd of Germany?\n');
      chat.end();

      expect(await chat.exited).toBe(0);
      const out = chat.stdout();
      expectInOrder(out, [
        '› /search off',
        'Web search is off',
        '› What is the capital of France?',
        'Paris is the capital of France.',
        '› /mode chat',
        'Switched to Chat mode',
        '› And of Germany?',
        'Berlin is the capital of Germany.',
      ]);
      expect(questionsSent(llm)).toEqual(['What is the capital of France?', 'And of Germany?']);
      // Piped stdout is plain text: no colours, no cursor moves.
      expect(out).not.toContain('\x1b');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'piped: a question that gets no answer makes the exit code non-zero, the rest still answered',
    async () => {
      llm.enqueue({ status: 401, body: { error: { message: 'bad key' } } }, textReply('Still here.'));
      chat = spawnChat(chatEnv(llm.baseUrl));
      chat.write('first question\nsecond question\n');
      chat.end();
      expect(await chat.exited).toBe(1);
      expectInOrder(chat.stdout(), ['› first question', 'credentials', '› second question', 'Still here.']);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'in a terminal: a question typed ahead during an answer is shown as queued and answered next; Ctrl-C twice quits',
    async () => {
      // The first answer stops after its first piece (chunk 2: role, three pieces, finish, usage)
      // until the typed-ahead line is shown as queued, so it is typed while the answer streams.
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const first = textReply('Paris is the capital of France.');
      first.holdAt = { index: 2, until: released };
      llm.enqueue(first, textReply('Berlin is the capital of Germany.'));
      chat = spawnChat(chatEnv(llm.baseUrl), { pty: true });
      await chat.waitForOutput((out) => out.includes('› '), 'the prompt');
      chat.write('What is the capital of France?\r');
      await waitUntil(() => llm.requests.length === 1, 'the first question to reach the model');
      chat.write('And of Germany?\r');
      try {
        await chat.waitForOutput((out) => out.includes('queued: And of Germany?'), 'the queued note');
      } finally {
        release();
      }
      await chat.waitForOutput(
        (out) => out.includes('Berlin is the capital of Germany.'),
        'the second answer',
      );
      expect(questionsSent(llm)).toEqual(['What is the capital of France?', 'And of Germany?']);
      expectInOrder(chat.stdout(), ['Paris is the capital of France.', 'Berlin is the capital of Germany.']);

      // At the idle prompt the first Ctrl-C says how to quit, the second quits.
      await chat.waitForOutput((out) => plain(out).trimEnd().endsWith('›'), 'the prompt after the answers');
      chat.write('\x03');
      await chat.waitForOutput((out) => out.includes('Press Ctrl-C again to quit'), 'the quit hint');
      chat.write('\x03');
      expect(await chat.exited).toBe(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
