/**
 * Whole turns in the terminal as a person or a script reads them, through the real core and the
 * shared TurnRenderer: a long cited agent answer on a pipe (`--once`) and in a real pseudo-terminal,
 * a failed search, and the Chinese locale on a narrow terminal. What is checked is stdout: on a pipe
 * the bytes, on a terminal what the bytes leave on the screen and in the scrollback (played through
 * a small emulator), so redraws in place count as what they leave, not as what they wrote.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleSink } from '../../adapters/console/console-sink.js';
import { createConsoleSurface, runOnce } from '../../adapters/console/console-surface.js';
import { markdownToTerminal, PLAIN } from '../../adapters/console/terminal-payloads.js';
import { type FakeOpenAI, startFakeOpenAI, textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { type FakeSearchServer, startFakeSearchServer } from '../helpers/fake-search-server.js';
import { emptyView } from '../../src/render/view.js';
import { RecordingSink, startTestScout, type TestScout, testMessage } from '../helpers/scout-harness.js';
import { longPlan } from '../conformance/turns.js';
import { fenceLines, longCitedAnswer } from '../render/markdown-samples.js';
import { type ChatProcess, chatEnv, spawnChat } from './chat-process.js';
import { TerminalEmulator } from './terminal-emulator.js';
import { capturedOutput } from './captured-output.js';

const QUERY = 'scout news';
const PROCESS_TEST_TIMEOUT_MS = 90_000;

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** Every citation number shown (`[n]` not part of a longer bracket). */
function citationNumbers(text: string): number[] {
  return [...text.matchAll(/(?<!\[)\[(\d+)\](?![\](])/g)].map((m) => Number(m[1]));
}

/**
 * The model searches once, says it has enough (streamed as its thinking), then the answer model
 * answers with `answer`.
 */
function scriptAgent(llm: FakeOpenAI, answer: string, pieces = 3): void {
  llm.enqueue(
    toolCallReply([{ name: 'web_search', arguments: { query: QUERY } }]),
    textReply('I have what I need.'),
  );
  llm.fallback = () => textReply(answer, { pieces, chunkDelayMs: 1 });
}

/** Checks a long cited answer as printed: whole, once, linked, References, fences balanced. */
function expectWholeCitedAnswer(shown: string, paragraphs: number): void {
  for (let i = 0; i < paragraphs; i++)
    expect(occurrences(shown, `Paragraph ${i}:`), `Paragraph ${i}`).toBe(1);
  expect(occurrences(shown, 'References')).toBe(1);
  for (const n of [1, 2, 3])
    expect(occurrences(shown, `${n}. Result ${n} for ${QUERY} <https://example.com/scout-news/${n}>`)).toBe(
      1,
    );
  // Every citation points at a listed reference.
  expect(new Set(citationNumbers(shown))).toEqual(new Set([1, 2, 3]));
  expect(fenceLines(shown)).toBe(2);
  expect(occurrences(shown, 'const storm = 30;')).toBe(1);
}

describe('a long cited agent answer in the terminal', () => {
  let h: TestScout | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('on a pipe (--once): printed whole, once, exactly the final linked answer, a dropped marker gone', async () => {
    h = await startTestScout({ env: { DEFAULT_MODE: 'agent' } });
    // [9] cites nothing the search found: the final answer drops it.
    const answer = longCitedAnswer(70).replace('Paragraph 5: Scout', 'Paragraph 5: Scout [9]');
    scriptAgent(h.llm, answer);
    const recorded = new RecordingSink();
    await h.scout.handleMessage(testMessage(`${QUERY}?`), recorded);
    const final = recorded.final?.answer ?? '';
    expect(final).toContain('[[1]](https://example.com/scout-news/1)');

    scriptAgent(h.llm, answer);
    const out = capturedOutput();
    expect(await runOnce(h.scout, `${QUERY}?`, out)).toBe(0);
    const printed = out.text;
    // Exactly the final answer as terminal text, once: nothing of the streamed text is left.
    const expected = markdownToTerminal(final, PLAIN);
    expect(occurrences(printed, expected)).toBe(1);
    expectWholeCitedAnswer(printed, 70);
    expect(printed).not.toContain('[9]');
    // The steps above it, once each; plain text only.
    expect(occurrences(printed, `✅ 🔍 Searched: ${QUERY}`)).toBe(1);
    expect(printed.indexOf(`Searched: ${QUERY}`)).toBeLessThan(printed.indexOf('Paragraph 0:'));
    expect(printed).not.toContain('Working…');
    expect(printed).not.toContain('\x1b');
  });

  it('a failed search shows once as failed, and the answer still comes', async () => {
    h = await startTestScout({ env: { DEFAULT_MODE: 'agent' } });
    h.search.failWith = { status: 500 };
    scriptAgent(h.llm, 'No sources today, but here is what I know.');
    const out = capturedOutput();
    expect(await runOnce(h.scout, `${QUERY}?`, out)).toBe(0);
    expect(occurrences(out.text, `❌ 🔍 Search failed: ${QUERY}`)).toBe(1);
    expect(out.text).not.toContain('❌ ❌');
    expect(out.text).toContain('No sources today, but here is what I know.');
    expect(out.text).not.toContain('References');
  });
});

/** Pipes `lines` into the terminal chat (as a script does) and resolves with stdout once it exits. */
async function pipedChat(h: TestScout, lines: string[]): Promise<{ printed: string; code: number }> {
  const input = new PassThrough();
  const output = Object.assign(new PassThrough(), { isTTY: false });
  let printed = '';
  output.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  const code = await new Promise<number>((resolve) => {
    void createConsoleSurface({ core: h.scout, input, output, onExit: resolve }).start();
    input.end(`${lines.join('\n')}\n`);
  });
  return { printed, code };
}

describe('hostile model text on a terminal', () => {
  it('a 105k-character line full of bold spans streams and lands whole, with output proportional to it', async () => {
    const emulator = new TerminalEmulator(80, 24);
    let written = 0;
    const sink = new ConsoleSink({
      write: (s: string) => {
        written += s.length;
        emulator.write(s);
      },
      isTTY: true,
      columns: 80,
      rows: 24,
    });
    const text = '**b** x'.repeat(15_000);
    const view = emptyView();
    for (let i = 1; i <= 50; i++) {
      view.answer = text.slice(0, (text.length * i) / 50);
      sink.update(view);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await sink.done({ ...view, answer: text, answerFinal: true, done: true });
    // Whole and once (the emulator trims each row's trailing space: compare without whitespace).
    const shown = emulator.text().replace(/\s/g, '');
    expect(shown === 'bx'.repeat(15_000), `${shown.length} characters shown`).toBe(true);
    // Each row carries only the style in force where it starts: no row repeats the line's history.
    expect(written).toBeLessThan(4 * text.length);
  });
});

describe('a plan in the terminal', () => {
  let h: TestScout | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('piped: a 10-step plan is shown whole above the question, y runs it, nothing is printed twice', async () => {
    h = await startTestScout({ env: { DEFAULT_MODE: 'plan' } });
    h.llm.enqueue(textReply(longPlan()));
    h.llm.fallback = () => textReply('All ten steps are done [1].');
    const { printed, code } = await pipedChat(h, ['look into scout', 'y']);
    expect(code).toBe(0);
    const question = printed.indexOf('Run this plan? [Y/n] y\n');
    expect(question).toBeGreaterThan(0);
    const above = printed.slice(0, question);
    const below = printed.slice(question);
    for (let i = 1; i <= 10; i++) {
      // The plan whole, once, above the question; each step's outcome once, under the answer to it.
      expect(occurrences(above, `End of step ${i}.`), `plan step ${i}`).toBe(1);
      expect(occurrences(below, `✅ ${i}. Step ${i} looks into part ${i}`), `step ${i} done`).toBe(1);
    }
    expect(occurrences(printed, '📋 Plan')).toBe(1);
    expect(below).toContain('All ten steps are done [1].');
    expect(below).toContain('References');
  });
});

describe('the terminal in Chinese', () => {
  let h: TestScout | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a narrow terminal shows the Chinese steps, answer and references whole, wide characters wrapped', async () => {
    h = await startTestScout({ env: { DEFAULT_MODE: 'agent', BOT_LOCALE: 'zh' } });
    h.search.failWith = { status: 500 };
    scriptAgent(h.llm, `${'这是一个关于侦察兵的很长的中文回答，'.repeat(12)}结束。`, 12);
    const emulator = new TerminalEmulator(30, 12);
    const sink = new ConsoleSink(
      { write: (s: string) => emulator.write(s), isTTY: true, columns: 30, rows: 12 },
      undefined,
      'zh',
    );
    sink.begin();
    await h.scout.handleMessage(testMessage(`${QUERY}?`), sink);
    const screen = emulator.text();
    const joined = screen.replace(/\n/g, '');
    expect(occurrences(joined, `❌ 🔍 搜索失败：${QUERY}`)).toBe(1);
    expect(occurrences(joined, '这是一个关于侦察兵的很长的中文回答，'.repeat(12))).toBe(1);
    expect(occurrences(joined, '结束。')).toBe(1);
    // The working line was live only: it is gone once the turn shows something.
    expect(screen).not.toContain('处理中');
    // The steps, a blank line, the answer, a blank line, the footer.
    expect(screen).toMatch(/\S\n\n这是一个/);
    expect(screen).toMatch(/结束。\n\n🔧/);
  });
});

/** What the terminal shows: a pty with no size set reports 0 × 0, so Scout draws for 80 × 24. */
function screenOf(chat: ChatProcess): TerminalEmulator {
  const emulator = new TerminalEmulator(80, 24);
  emulator.write(chat.stdout());
  return emulator;
}

/** The prompt is back at the bottom of the screen. */
const promptBack = (chat: ChatProcess) => /\n› ?$/.test(screenOf(chat).text().trimEnd());

describe('the terminal chat in a real terminal (pty)', () => {
  let llm: FakeOpenAI;
  let search: FakeSearchServer;
  let chat: ChatProcess | undefined;
  afterEach(async () => {
    chat?.child.kill('SIGKILL');
    chat = undefined;
    await llm?.close();
    await search?.close();
  });

  it(
    'streams, scrolls and lands whole: every paragraph once, References, fences balanced, the prompt back',
    async () => {
      llm = await startFakeOpenAI();
      search = await startFakeSearchServer();
      scriptAgent(llm, longCitedAnswer(70), 40);
      chat = spawnChat(chatEnv(llm.baseUrl, { DEFAULT_MODE: 'agent', ...search.env('tavily') }), {
        pty: true,
      });
      await chat.waitForOutput((out) => out.includes('› '), 'the prompt');
      chat.write(`${QUERY}?\r`);
      const screen = () => screenOf(chat!).text();
      await chat.waitForOutput(
        () => /References[\s\S]*\n› ?$/.test(screen().trimEnd()),
        'the answer, then the prompt',
      );
      const shown = screen();
      expectWholeCitedAnswer(shown, 70);
      expect(occurrences(shown, `✅ 🔍 Searched: ${QUERY}`)).toBe(1);
      // Paragraphs in order.
      const at = Array.from({ length: 70 }, (_, i) => shown.indexOf(`Paragraph ${i}:`));
      expect(at).toEqual([...at].sort((a, b) => a - b));
      chat.write('/quit\r');
      expect(await chat.exited).toBe(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'a 10-step plan scrolls past the screen, is shown whole above the question, y runs it, each line once',
    async () => {
      llm = await startFakeOpenAI();
      search = await startFakeSearchServer();
      llm.enqueue(textReply(longPlan()));
      llm.fallback = () => textReply('All ten steps are done [1].');
      chat = spawnChat(chatEnv(llm.baseUrl, { DEFAULT_MODE: 'plan', ...search.env('tavily') }), {
        pty: true,
      });
      await chat.waitForOutput((out) => out.includes('› '), 'the prompt');
      chat.write('look into scout\r');
      await chat.waitForOutput(() => screenOf(chat!).text().includes('Run this plan? [Y/n]'), 'the question');
      chat.write('y\r');
      await chat.waitForOutput(
        () => promptBack(chat!) && screenOf(chat!).text().includes('References'),
        'the answer',
      );
      const lines = screenOf(chat).lines();
      const question = lines.findIndex((line) => line.startsWith('Run this plan? [Y/n]'));
      expect(question).toBeGreaterThan(0);
      const above = lines.slice(0, question).join('\n');
      const below = lines.slice(question).join('\n');
      for (let i = 1; i <= 10; i++) {
        expect(occurrences(above, `End of step ${i}.`), `plan step ${i}`).toBe(1);
        expect(occurrences(below, `✅ ${i}. Step ${i} looks into part ${i}`), `step ${i} done`).toBe(1);
      }
      expect(occurrences(lines.join('\n'), '📋 Plan')).toBe(1);
      expect(occurrences(below, 'All ten steps are done [1].')).toBe(1);
      chat.write('/quit\r');
      expect(await chat.exited).toBe(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'Ctrl-C mid-answer stops it: what streamed stays once, "Stopped." under it, the prompt back',
    async () => {
      llm = await startFakeOpenAI();
      search = await startFakeSearchServer();
      llm.fallback = () => textReply(longCitedAnswer(70), { pieces: 140, chunkDelayMs: 40 });
      chat = spawnChat(chatEnv(llm.baseUrl, { DEFAULT_MODE: 'chat', ...search.env('tavily') }), {
        pty: true,
      });
      await chat.waitForOutput((out) => out.includes('› '), 'the prompt');
      chat.write('tell me about scout\r');
      await chat.waitForOutput(() => screenOf(chat!).text().includes('Paragraph 3:'), 'the answer streaming');
      chat.write('\x03');
      await chat.waitForOutput(
        () => promptBack(chat!) && screenOf(chat!).text().includes('Stopped.'),
        'the stop',
      );
      const text = screenOf(chat).lines().join('\n');
      expect(occurrences(text, '⏹️ Stopped.')).toBe(1);
      expect(occurrences(text, 'Paragraph 69:')).toBe(0);
      for (let i = 0; i < 3; i++) expect(occurrences(text, `Paragraph ${i}:`), `Paragraph ${i}`).toBe(1);
      expect(text.indexOf('Paragraph 2:')).toBeLessThan(text.indexOf('⏹️ Stopped.'));
      chat.write('/quit\r');
      expect(await chat.exited).toBe(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
