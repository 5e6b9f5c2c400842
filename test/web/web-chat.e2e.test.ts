/**
 * The web chat end to end in a real browser: the page built from adapters/web/client, the real web
 * surface and the real Scout core, with the model and the search API faked on loopback. Each test
 * drives the page as a user does (types in "Message", presses Enter, clicks buttons by their names)
 * and checks what the user sees, and what the model was sent.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../context/context-kit.js';
import { fixtureStdio, writeMcpJson } from '../mcp/mcp-kit.js';
import { type A11yViolation, checkA11y, describeBrowser, launchBrowser } from '../helpers/browser.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { WEB_SEARCH_TOOL_NAME } from '../../src/tools/web-search-tool.js';
import { expectSettingsLabels } from '../helpers/web-page.js';
import {
  ask,
  changeSettings,
  chooseMode,
  lastTurn,
  message,
  type OpenedPage,
  openChat,
  type PageWatch,
  reload,
  WAIT,
  recordTranscript,
  recorded,
  startWebChat,
  transcript,
  turnEnded,
  type WebChat,
} from '../helpers/web-e2e.js';

/** Screenshots land here (SCOUT_WEB_SCREENSHOTS, or a temporary folder); docs/images with SCOUT_UPDATE_DOCS_IMAGES=1. */
const shotDir = process.env.SCOUT_WEB_SCREENSHOTS || mkdtempSync(join(tmpdir(), 'scout-web-shots-'));

describeBrowser('the web chat, end to end', () => {
  let browser: Browser;
  let chat: WebChat;
  const contexts: BrowserContext[] = [];

  const open = async (options?: Parameters<typeof openChat>[2]): Promise<OpenedPage> => {
    const opened = await openChat(browser, chat.origin, options);
    contexts.push(opened.context);
    return opened;
  };

  beforeAll(async () => {
    [browser, chat] = await Promise.all([launchBrowser(), startWebChat()]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await chat?.close();
  });

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
    chat.h.llm.fallback = undefined;
  });

  it('a chat turn streams into the transcript as rendered Markdown, with the statistics footer', async () => {
    const { page, watch } = await open();
    await recordTranscript(page);
    const answer = [
      'Here is a comparison.',
      '',
      '| Language | Typed |',
      '| --- | --- |',
      '| TypeScript | yes |',
      '| JavaScript | no |',
      '',
      '```ts',
      'const answer: number = 42;',
      '```',
      '',
      'That is all.',
    ].join('\n');
    chat.h.llm.enqueue(textReply(answer, { pieces: 6, chunkDelayMs: 100 }));
    await ask(page, 'Compare TypeScript and JavaScript');
    const log = transcript(page);
    await expect.poll(() => log.getByText('Compare TypeScript and JavaScript').count(), WAIT).toBe(1);
    const turn = await turnEnded(page);
    const table = turn.getByRole('table');
    await expect.poll(() => table.getByRole('cell', { name: 'TypeScript' }).count(), WAIT).toBe(1);
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Language', 'Typed']);
    expect(await turn.locator('pre code').textContent()).toBe('const answer: number = 42;');
    expect(await turn.locator('pre code').getAttribute('class')).toMatch(/language-ts/);
    expect(await turn.getByText('That is all.').isVisible()).toBe(true);
    // The answer grew in the page piece by piece before it was whole.
    const { answers } = await recorded(page);
    expect(answers.length).toBeGreaterThanOrEqual(2);
    expect(answers[0]!.length).toBeLessThan(answers.at(-1)!.length);
    const footer = turn.locator('.footer');
    expect(await footer.isVisible()).toBe(true);
    expect(await footer.textContent()).toMatch(/tok/);
    expect(watch).toEqual({ dialogs: [], foreign: [], errors: [] });
  });

  it('the first question titles the new conversation in the sidebar', async () => {
    const { page, watch } = await open();
    chat.h.llm.enqueue(textReply('Lisbon is lovely in May.'));
    await ask(page, 'When should I visit Lisbon?');
    await turnEnded(page);
    const nav = page.getByRole('navigation', { name: 'Conversations' });
    // The server has the title at once (the message was taken after it was set)…
    const list = (await (await page.request.get(`${chat.origin}/api/conversations`)).json()) as {
      conversations: Array<{ title: string }>;
    };
    expect(list.conversations[0]?.title).toBe('When should I visit Lisbon?');
    // …and the page shows it, without a reload.
    await expect
      .poll(() => nav.getByRole('link', { name: 'When should I visit Lisbon?' }).count(), WAIT)
      .toBe(1);
    expect(await page.title()).toContain('When should I visit Lisbon?');
    expect(watch).toEqual({ dialogs: [], foreign: [], errors: [] });
  });

  it('an agent turn: each step is a <details>, open while it runs and folded after; citations link to References', async () => {
    const { page, watch } = await open();
    await chooseMode(page, 'agent');
    chat.h.search.script('node 22 release', [
      {
        title: 'Node.js 22 is out',
        url: 'https://nodejs.org/en/blog/release/v22.0.0',
        snippet: 'require(esm) lands.',
      },
      { title: 'Node test runner', url: 'https://nodejs.org/api/test.html', snippet: 'Stable since 20.' },
    ]);
    // The search answers only once the page shows its step running, and open.
    let release = () => {};
    chat.h.search.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const asked = chat.h.llm.requests.length;
    chat.h.llm.enqueue(
      toolCallReply([{ name: WEB_SEARCH_TOOL_NAME, arguments: { query: 'node 22 release' } }]),
      textReply('I have what I need.'),
    );
    chat.h.llm.fallback = () =>
      textReply('Node 22 lets CommonJS require ES modules [1] and ships a stable test runner [2].', {
        pieces: 4,
      });
    try {
      await ask(page, 'What is new in Node 22?');
      const running = transcript(page).locator('details.step-search.status-running[open]');
      await expect.poll(() => running.isVisible(), WAIT).toBe(true);
      release();
      const turn = await turnEnded(page);
      const steps = turn.locator('details');
      expect(await steps.count()).toBeGreaterThan(0);
      // Folded once the turn is over.
      expect(
        await steps.evaluateAll((all) => all.map((d) => (d as unknown as { open: boolean }).open)),
      ).toEqual(Array.from({ length: await steps.count() }, () => false));
      // Citations are links to the sources, and a References list names them.
      const cites = turn.locator('.answer a.cite');
      expect(await cites.count()).toBe(2);
      expect(await cites.first().getAttribute('href')).toBe('https://nodejs.org/en/blog/release/v22.0.0');
      expect(
        await turn
          .getByText(/References|Sources/)
          .first()
          .isVisible(),
      ).toBe(true);
      expect(await turn.getByRole('link', { name: 'Node.js 22 is out' }).count()).toBeGreaterThan(0);
      expect(chat.h.search.requests.map((r) => r.query)).toContain('node 22 release');
      const first = chat.h.llm.requests[asked]?.body as { tools?: Array<{ function: { name: string } }> };
      expect(first.tools?.map((t) => t.function.name)).toContain(WEB_SEARCH_TOOL_NAME);
      expect(watch).toEqual({ dialogs: [], foreign: [], errors: [] });
    } finally {
      release();
      chat.h.search.hold = null;
    }
  });

  for (const choice of ['Run', 'Cancel'] as const) {
    it(`plan mode shows the plan with Run and Cancel; ${choice} ${choice === 'Run' ? 'runs' : 'cancels'} it`, async () => {
      const { page, watch } = await open();
      await chooseMode(page, 'plan');
      const query = `plan ${choice.toLowerCase()} query`;
      const plan = {
        steps: [
          {
            step: 1,
            description: 'Search for the release notes',
            tool: WEB_SEARCH_TOOL_NAME,
            parameters: { query },
          },
        ],
      };
      const asked = chat.h.llm.requests.length;
      const searched = chat.h.search.requests.length;
      chat.h.llm.enqueue(textReply(JSON.stringify(plan)));
      chat.h.llm.fallback = () => textReply('The plan found the release notes [1].');
      await ask(page, 'Find the release notes');
      const turn = lastTurn(page);
      const run = turn.getByRole('button', { name: 'Run' });
      const cancel = turn.getByRole('button', { name: 'Cancel' });
      await run.waitFor();
      expect(await cancel.isVisible()).toBe(true);
      expect(await turn.getByText('Search for the release notes').first().isVisible()).toBe(true);
      // The model was asked for a plan in JSON, naming the tools it may use.
      const planner = chat.h.llm.requests[asked]?.body as { response_format?: { type: string } };
      expect(planner.response_format?.type).toMatch(/json/);
      await (choice === 'Run' ? run : cancel).click();
      await turnEnded(page);
      expect(await run.count()).toBe(0);
      expect(await cancel.count()).toBe(0);
      if (choice === 'Run') {
        expect(chat.h.search.requests.slice(searched).map((r) => r.query)).toEqual([query]);
        expect(await turn.getByText('The plan found the release notes').isVisible()).toBe(true);
        expect(await turn.getByText('Accepted').isVisible()).toBe(true);
      } else {
        expect(chat.h.search.requests.length).toBe(searched);
        expect(await turn.getByText('The plan found the release notes').count()).toBe(0);
        expect(await turn.getByText('Declined').isVisible()).toBe(true);
        expect(chat.h.llm.requests.length).toBe(asked + 1);
      }
      expect(watch).toEqual({ dialogs: [], foreign: [], errors: [] });
    });
  }

  it('Stop ends a slow answer as stopped, and the Stop button goes away', async () => {
    const { page, watch } = await open();
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    chat.h.llm.enqueue(textReply(words, { pieces: 40, chunkDelayMs: 250 }));
    await ask(page, 'Count slowly');
    const turn = lastTurn(page);
    const stop = page.getByRole('button', { name: 'Stop' });
    await stop.waitFor();
    // Some of the answer is in before the user stops it.
    await turn.getByText(/word0/).waitFor();
    await stop.click();
    await turnEnded(page);
    expect(await stop.isVisible()).toBe(false);
    expect(await turn.locator('.answer').textContent()).not.toContain('word39');
    expect(watch).toEqual({ dialogs: [], foreign: [], errors: [] });
    // Said once: as the turn's note, not again as an error alert.
    expect(await turn.getByText('Stopped.').count()).toBe(1);
  });

  it('Settings: temperature, function-call model and max tokens reach the next request to the model, and the footer names the model', async () => {
    const { page, watch } = await open();
    const { models } = (await (await page.request.get(`${chat.origin}/api/session`)).json()) as {
      models: string[];
    };
    const other = models.find((m) => m !== 'openai/test-model');
    if (!other) throw new Error(`the session offers one model only: ${models.join(', ')}`);
    await changeSettings(page, async (dialog) => {
      await dialog.getByLabel('Temperature').fill('0.3');
      await dialog.getByLabel('Function-call model').selectOption(other);
      await dialog.getByLabel('Max tokens').fill('777');
    });
    const asked = chat.h.llm.requests.length;
    chat.h.llm.enqueue(textReply('Set and done.'));
    await ask(page, 'Hello with new settings');
    const turn = await turnEnded(page);
    const body = chat.h.llm.requests[asked]?.body as Record<string, unknown>;
    expect(body.model).toBe(other.slice(other.indexOf('/') + 1));
    expect(body.temperature).toBe(0.3);
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(777);
    expect(await turn.locator('.footer').textContent()).toContain(other);
    // The dialog shows what was saved when opened again.
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Temperature').inputValue()).toBe('0.3');
    expect(await dialog.getByLabel('Max tokens').inputValue()).toBe('777');
    expect(await dialog.getByLabel('Function-call model').inputValue()).toBe(other);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(watch).toEqual({ dialogs: [], foreign: [], errors: [] });
  });

  it('a PDF attached with "Attach file" reaches the model as text', async () => {
    const { page, watch } = await open();
    await page.getByLabel('Attach file').setInputFiles({
      name: 'budget-2025.pdf',
      mimeType: 'application/pdf',
      buffer: makePdf('The travel budget is PELICAN 4242 euros.'),
    });
    const chips = page.getByRole('list', { name: 'Attached files' });
    await chips.getByText('budget-2025.pdf').waitFor();
    await expect.poll(() => chips.getByText('uploading…').count(), WAIT).toBe(0);
    const asked = chat.h.llm.requests.length;
    chat.h.llm.enqueue(textReply('The budget is 4242 euros.'));
    await ask(page, 'What is the travel budget in the PDF?');
    await turnEnded(page);
    expect(JSON.stringify(chat.h.llm.requests[asked]?.body)).toContain('PELICAN 4242');
    // The question shows the file it came with.
    expect(await transcript(page).locator('.entry.user').getByText('budget-2025.pdf').count()).toBe(1);
    expect(await lastTurn(page).getByText('The budget is 4242 euros.').isVisible()).toBe(true);
    expect(watch).toEqual({ dialogs: [], foreign: [], errors: [] });
  });

  it('nothing hostile runs or loads: model answer, thinking, search results, a file name, a title and a command reply', async () => {
    const { page, watch } = await open();
    await chooseMode(page, 'agent');
    const query = `${XSS.img} news`;
    chat.h.search.script(query, [
      {
        title: `${XSS.script} ${XSS.svg}`,
        url: 'https://example.com/one',
        snippet: `${XSS.img} ${XSS.style}`,
      },
      { title: XSS.mdJs, url: 'https://example.com/two', snippet: `${XSS.iframe} ${XSS.styleAttr}` },
    ]);
    chat.h.llm.enqueue(
      toolCallReply([{ name: WEB_SEARCH_TOOL_NAME, arguments: { query } }], { reasoning: CORPUS }),
      textReply('I have what I need.'),
    );
    chat.h.llm.fallback = () => textReply(`Cited [1] and [2].\n\n${CORPUS}`, { pieces: 5 });
    await page.getByLabel('Attach file').setInputFiles({
      name: `notes ${XSS.img}.txt`,
      mimeType: 'text/plain',
      buffer: Buffer.from(`${CORPUS}\nThe file is hostile.`),
    });
    const chips = page.getByRole('list', { name: 'Attached files' });
    await expect.poll(() => chips.getByText('uploading…').count(), WAIT).toBe(0);
    const question = `${XSS.script} ${XSS.img} what is new?`;
    await ask(page, question);
    await turnEnded(page);
    // A command that echoes what was typed.
    await ask(page, `/mode ${XSS.svg}`);
    await transcript(page).locator('.entry.reply').waitFor();
    await expectHarmless(page, watch);
    // What was stored comes back as harmless after a reload (history, not the live stream); the
    // conversation's title is the question.
    await reload(page);
    await lastTurn(page).getByText('Cited').waitFor();
    expect(await transcript(page).locator('.user-text').first().textContent()).toBe(question);
    expect(await transcript(page).locator('.entry.user .chip').first().textContent()).toBe(
      `notes ${XSS.img}.txt`,
    );
    const nav = page.getByRole('navigation', { name: 'Conversations' });
    expect(await nav.getByRole('link').first().textContent()).toBe(question);
    await expectHarmless(page, watch);
    // Renamed through the sidebar to another payload.
    await nav.getByRole('button', { name: 'Rename' }).first().click();
    await page.getByRole('textbox', { name: 'Conversation title' }).fill(`${XSS.iframe} ${XSS.img}`);
    await page.getByRole('button', { name: 'Save title' }).click();
    await expect
      .poll(() => nav.getByRole('link').first().textContent(), WAIT)
      .toBe(`${XSS.iframe} ${XSS.img}`);
    await expectHarmless(page, watch);
  });

  it('another browser (another user) sees none of the first one’s conversations', async () => {
    const alice = await open();
    chat.h.llm.enqueue(textReply('Only for Alice.'));
    await ask(alice.page, 'Alice’s private question');
    await turnEnded(alice.page);
    const id = /#\/c\/([^/]+)$/.exec(alice.page.url())?.[1];
    if (!id) throw new Error(`no conversation in ${alice.page.url()}`);
    const bob = await open();
    const nav = bob.page.getByRole('navigation', { name: 'Conversations' });
    expect(await nav.getByRole('link').count()).toBe(0);
    // Even with the address of Alice's conversation, Bob gets a refusal and none of it.
    await bob.page.goto(`${chat.origin}/#/c/${id}`);
    await bob.page
      .getByRole('alert')
      .filter({ hasText: /does not exist/ })
      .waitFor();
    expect(await bob.page.getByText('Alice’s private question').count()).toBe(0);
    expect(await bob.page.getByText('Only for Alice.').count()).toBe(0);
    expect(await nav.getByRole('link').count()).toBe(0);
    // Alice still has it.
    await reload(alice.page);
    await transcript(alice.page).getByText('Only for Alice.').waitFor();
    expect(bob.watch.foreign).toEqual([]);
  });

  it('has no serious or critical accessibility violation: empty chat and the Settings dialog', async () => {
    const { page } = await open();
    expect(await checkA11y(page)).toEqual([]);
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    await expectSettingsLabels(dialog);
    expect(await checkA11y(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  it('a finished agent turn: accessible in light and dark, fits 1280×800 and 360 px, screenshots for the README', {
    timeout: 40_000,
  }, async () => {
    const violations: Record<string, A11yViolation[]> = {};
    const broken: Record<string, string[]> = {};
    for (const scheme of ['light', 'dark'] as const) {
      const { page } = await open({ colorScheme: scheme });
      await chooseMode(page, 'agent');
      await finishedAgentTurn(page);
      await page.screenshot({ path: join(shotDir, `web-chat-${scheme}.png`) });
      violations[`${scheme} 1280`] = await checkA11y(page);
      await page.setViewportSize({ width: 360, height: 740 });
      await expect
        .poll(() => page.evaluate('document.documentElement.scrollWidth'), WAIT)
        .toBeLessThanOrEqual(360);
      expect(await message(page).isVisible()).toBe(true);
      expect(await lastTurn(page).locator('.answer').isVisible()).toBe(true);
      await page.screenshot({ path: join(shotDir, `web-chat-mobile-${scheme}.png`) });
      // A narrow table scrolls or wraps between words, never inside one ("Statu|s").
      broken[scheme] = (await lastTurn(page).locator('th, td').evaluateAll(BROKEN_WORDS)) as string[];
      violations[`${scheme} 360`] = await checkA11y(page);
    }
    if (process.env.SCOUT_UPDATE_DOCS_IMAGES === '1') {
      const docs = join(import.meta.dirname, '../../docs/images');
      mkdirSync(docs, { recursive: true });
      copyFileSync(join(shotDir, 'web-chat-light.png'), join(docs, 'web-chat.png'));
      copyFileSync(join(shotDir, 'web-chat-mobile-light.png'), join(docs, 'web-chat-mobile.png'));
    }
    expect(violations).toEqual({ 'light 1280': [], 'light 360': [], 'dark 1280': [], 'dark 360': [] });
    expect(broken).toEqual({ light: [], dark: [] });
  });

  /** A question answered in agent mode with a search, a table, code and citations; waits until done. */
  async function finishedAgentTurn(page: Page): Promise<void> {
    chat.h.search.script('node 22 highlights', [
      {
        title: 'Node.js 22 release notes',
        url: 'https://nodejs.org/en/blog/release/v22.0.0',
        snippet: 'require() of ES modules, a WebSocket client, glob in fs.',
      },
      {
        title: 'What is new in Node 22',
        url: 'https://example.com/node-22',
        snippet: 'V8 12.4, Maglev on by default, node --run.',
      },
    ]);
    chat.h.llm.enqueue(
      toolCallReply([{ name: WEB_SEARCH_TOOL_NAME, arguments: { query: 'node 22 highlights' } }], {
        reasoning: 'The user wants the highlights of Node 22: search the release notes.',
      }),
      textReply('I have what I need.'),
    );
    chat.h.llm.fallback = () =>
      textReply(
        [
          'Node.js 22 brings three changes most projects notice [1]:',
          '',
          '| Feature | Status | Flag |',
          '| --- | --- | --- |',
          '| `require()` of ES modules | experimental | `--experimental-require-module` |',
          '| WebSocket client | stable | none |',
          '| `node --run` | stable | none |',
          '',
          'Maglev, V8’s mid-tier compiler, is on by default, so short scripts start faster [2].',
          '',
          '```js',
          "import { glob } from 'node:fs/promises';",
          "for await (const file of glob('**/*.test.js')) console.log(file);",
          '```',
        ].join('\n'),
        { pieces: 6 },
      );
    await ask(page, 'What is new in Node 22?');
    const turn = await turnEnded(page);
    await turn.locator('.answer a.cite').first().waitFor();
  }

  describe('tool approval', () => {
    let tools: WebChat;
    let mcp: ReturnType<typeof writeMcpJson>;
    let calls: string;

    beforeAll(async () => {
      mcp = writeMcpJson({});
      calls = join(mcp.dir, 'calls.txt');
      writeFileSync(calls, '');
      writeFileSync(
        mcp.path,
        JSON.stringify({ mcpServers: { notes: fixtureStdio([], { FIXTURE_CALLS_FILE: calls }) } }),
      );
      tools = await startWebChat({
        env: { DEFAULT_MODE: 'agent', AGENT_MIN_RESULT_CHARS: '0', MCP_CONFIG: mcp.path },
      });
    }, 30_000);

    afterAll(async () => {
      await tools?.close();
      mcp?.remove();
    });

    afterEach(() => {
      tools.h.llm.fallback = undefined;
    });

    for (const choice of ['Approve', 'Deny'] as const) {
      it(`a tool that changes something waits for ${choice}`, { timeout: 30_000 }, async () => {
        const opened = await openChat(browser, tools.origin);
        contexts.push(opened.context);
        const { page, watch } = opened;
        const id = choice === 'Approve' ? 'n1' : 'n2';
        tools.h.llm.enqueue(
          toolCallReply([{ name: 'notes__delete_note', arguments: { id } }]),
          textReply('Done.'),
        );
        tools.h.llm.fallback = () =>
          textReply(choice === 'Approve' ? `Note ${id} is deleted.` : 'I changed nothing.');
        await ask(page, `Delete note ${id}`);
        const turn = lastTurn(page);
        const approve = turn.getByRole('button', { name: 'Approve' });
        const deny = turn.getByRole('button', { name: 'Deny' });
        await approve.waitFor(WAIT);
        expect(await deny.isVisible()).toBe(true);
        // The request names the tool and its arguments; nothing ran before the answer.
        expect(await turn.locator('.confirm').textContent()).toContain('notes__delete_note');
        expect(await turn.locator('.confirm').textContent()).toContain(`"id": "${id}"`);
        expect(readFileSync(calls, 'utf8')).not.toContain(id);
        await (choice === 'Approve' ? approve : deny).click();
        await turnEnded(page);
        expect(await approve.count()).toBe(0);
        expect(await deny.count()).toBe(0);
        if (choice === 'Approve') {
          expect(readFileSync(calls, 'utf8')).toContain(`delete_note {"id":"${id}"}`);
          expect(await turn.getByText('Accepted').isVisible()).toBe(true);
          expect(await turn.getByText(`Note ${id} is deleted.`).isVisible()).toBe(true);
        } else {
          expect(readFileSync(calls, 'utf8')).not.toContain(id);
          expect(await turn.getByText('Declined').isVisible()).toBe(true);
          expect(await turn.getByText('I changed nothing.').isVisible()).toBe(true);
        }
        expect(watch).toEqual({ dialogs: [], foreign: [], errors: [] });
      });
    }
  });
});

/**
 * The single words (no space or hyphen) of table cells that the browser laid out on more than one
 * line: a word broken inside. Runs in the page (the DOM types are not in this project's lib).
 */
// biome-ignore lint/suspicious/noExplicitAny: DOM nodes, untyped here
const BROKEN_WORDS = (cells: any[]): string[] => {
  const out: string[] = [];
  for (const cell of cells) {
    const text = (cell.textContent ?? '').trim();
    if (!text || /[\s-]/.test(text)) continue;
    const range = cell.ownerDocument.createRange();
    range.selectNodeContents(cell);
    const lines = new Set([...range.getClientRects()].map((r: { top: number }) => Math.round(r.top)));
    if (lines.size > 1) out.push(text);
  }
  return out;
};

const SET = 'window.__pwned=1';
/** One payload per way in; each would set window.__pwned if it ran. */
const XSS = {
  script: `<script>${SET}</script>`,
  img: `<img src=x onerror="${SET}">`,
  svg: `<svg onload="${SET}"><circle r="9"/></svg>`,
  iframe: '<iframe src="javascript:parent.__pwned=1"></iframe>',
  srcdoc: '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
  jsLink: `<a href="javascript:${SET}">js link</a>`,
  dataLink: '<a href="data:text/html,<script>parent.__pwned=1</script>">data link</a>',
  mdJs: '[md js link](javascript:alert(1))',
  mdData: '[md data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  style: '<style>body{display:none;background:url(https://evil.example/style.png)}</style>',
  styleAttr: '<div style="position:fixed;inset:0;background:url(https://evil.example/attr.png)">styled</div>',
  pixel: '![pixel](https://evil.example/pixel.png)',
  remoteImg: '<img src="https://evil.example/img.png">',
  toggle: `<details open ontoggle="${SET}"><summary>t</summary>x</details>`,
  mxss: `<math><mtext><table><mglyph><style><img src=x onerror="${SET}">`,
  form: '<form action="https://evil.example/f"><button>go</button></form>',
  link: '<link rel="stylesheet" href="https://evil.example/x.css">',
  meta: '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
  object: '<object data="https://evil.example/x.swf"></object>',
};
const CORPUS = Object.values(XSS).join('\n\n');

/** Nothing ran, nothing loaded from elsewhere, no dialog, and no active markup is in the page. */
async function expectHarmless(page: Page, watch: PageWatch): Promise<void> {
  expect(await page.evaluate('window.__pwned')).toBeUndefined();
  expect(watch).toEqual({ dialogs: [], foreign: [], errors: [] });
  const app = page.locator('.app');
  for (const selector of [
    'script',
    'iframe',
    'form:not(.composer):not(.settings-form):not(.rename-form)',
    'object',
    'embed',
    'style',
    'link',
    'meta',
    'svg',
    'math',
    '[onerror]',
    '[onload]',
    '[ontoggle]',
    '[onclick]',
  ])
    expect(await app.locator(selector).count(), selector).toBe(0);
  const log = transcript(page);
  expect(await log.locator('[style]').count()).toBe(0);
  const hrefs = await app
    .locator('a[href]')
    .evaluateAll((all) => all.map((a) => a.getAttribute('href') ?? ''));
  for (const href of hrefs) expect(href).toMatch(/^(https?:|mailto:|#)/);
  const images = await log.locator('img').evaluateAll((all) => all.map((i) => i.getAttribute('src') ?? ''));
  for (const src of images) expect(src).toMatch(/^data:image\//);
  expect(await page.evaluate('getComputedStyle(document.body).display')).toBe('block');
}
