/**
 * The web chat end to end in a real browser: the page built from adapters/web/client, the real web
 * surface and the real Scout core, with the model and the search API faked on loopback. Each test
 * drives the page as a user does (types in "Message", presses Enter, clicks buttons by their names)
 * and checks what the user sees, and what the model was sent.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { makePdf } from '../context/context-kit.js';
import { describeBrowser, launchBrowser } from '../helpers/browser.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { WEB_SEARCH_TOOL_NAME } from '../../src/tools/web-search-tool.js';
import {
  ask,
  changeSettings,
  chooseMode,
  lastTurn,
  type OpenedPage,
  openChat,
  recordTranscript,
  recorded,
  startWebChat,
  transcript,
  turnEnded,
  type WebChat,
} from '../helpers/web-e2e.js';

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
    chat.h.llm.enqueue(textReply(answer, { pieces: 6, chunkDelayMs: 60 }));
    await ask(page, 'Compare TypeScript and JavaScript');
    const log = transcript(page);
    await expect.poll(() => log.getByText('Compare TypeScript and JavaScript').count()).toBe(1);
    const turn = await turnEnded(page);
    const table = turn.getByRole('table');
    await expect.poll(() => table.getByRole('cell', { name: 'TypeScript' }).count()).toBe(1);
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Language', 'Typed']);
    expect(await turn.locator('pre code').textContent()).toBe('const answer: number = 42;');
    expect(await turn.locator('pre code').getAttribute('class')).toMatch(/language-ts/);
    expect(await turn.getByText('That is all.').isVisible()).toBe(true);
    // The answer grew in the page piece by piece before it was whole.
    const { answers } = await recorded(page);
    expect(answers.length).toBeGreaterThan(2);
    expect(answers[0]!.length).toBeLessThan(answers.at(-1)!.length);
    const footer = turn.locator('.footer');
    expect(await footer.isVisible()).toBe(true);
    expect(await footer.textContent()).toMatch(/tok/);
    expect(watch).toEqual({ dialogs: [], foreign: [], errors: [] });
  });

  it('an agent turn: each step is a <details>, open while it runs and folded after; citations link to References', async () => {
    const { page, watch } = await open();
    await chooseMode(page, 'agent');
    await recordTranscript(page);
    chat.h.search.script('node 22 release', [
      {
        title: 'Node.js 22 is out',
        url: 'https://nodejs.org/en/blog/release/v22.0.0',
        snippet: 'require(esm) lands.',
      },
      { title: 'Node test runner', url: 'https://nodejs.org/api/test.html', snippet: 'Stable since 20.' },
    ]);
    // The search answers slowly enough that its step is drawn while it runs.
    chat.h.search.latencyMs = 300;
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
      const turn = await turnEnded(page);
      const steps = turn.locator('details');
      expect(await steps.count()).toBeGreaterThan(0);
      // Folded once the turn is over.
      expect(
        await steps.evaluateAll((all) => all.map((d) => (d as unknown as { open: boolean }).open)),
      ).toEqual(Array.from({ length: await steps.count() }, () => false));
      const history = (await recorded(page)).steps;
      const searchRunning = history.filter(
        (s) => /step-search\b/.test(s.cls) && /status-running/.test(s.cls),
      );
      expect(searchRunning.length).toBeGreaterThan(0);
      expect(searchRunning.every((s) => s.open)).toBe(true);
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
      chat.h.search.latencyMs = 0;
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
    await expect.poll(() => chips.getByText('uploading…').count()).toBe(0);
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
});
