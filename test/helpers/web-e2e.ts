/**
 * The web chat end to end, for browser tests: the page built fresh (scripts/build-web.mjs) into a
 * temporary folder, the real web surface and the real Scout core on loopback fakes (model, search),
 * and helpers that drive the page as a user does (type in "Message", press Enter, click by name) and
 * watch what must never happen (a dialog, a request to another origin, a script error).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { createWebSurface, type WebSurface } from '../../adapters/web/web-surface.js';
import { buildWeb } from '../../scripts/build-web.mjs';
import type { Config } from '../../src/config/env.js';
import { silentLogger } from '../../src/logger.js';
import { startTestScout, type TestScout, type TestScoutOptions } from './scout-harness.js';

let built: Promise<string> | undefined;

/** Builds the page once per test file (process) into a temporary folder; removed at exit. */
export function builtPage(): Promise<string> {
  built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scout-web-e2e-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    await buildWeb({ outdir: dir, minify: true });
    return dir;
  })();
  return built;
}

export interface WebChat {
  h: TestScout;
  web: WebSurface;
  origin: string;
  port: number;
  /** Stops the surface, then the core (and the fakes and store it owns). */
  close(): Promise<void>;
}

/** Starts the web surface on a config (another one than the core's, for auth tests). */
export async function startSurface(
  h: TestScout,
  config: Config = h.config,
): Promise<{ web: WebSurface; origin: string; port: number }> {
  const web = createWebSurface({
    core: h.scout,
    config,
    logger: silentLogger,
    stores: h.stores,
    assetsDir: await builtPage(),
  });
  await web.start();
  const address = web.address();
  if (!address) throw new Error('the web surface is not listening');
  return { web, origin: `http://127.0.0.1:${address.port}`, port: address.port };
}

/**
 * A Scout core on the fakes with the web surface in front. The agent reads no result pages by
 * default (AGENT_READ_RESULTS=0): the fake search's URLs are not on loopback.
 */
export async function startWebChat(options: TestScoutOptions = {}): Promise<WebChat> {
  const h = await startTestScout({
    ...options,
    env: { AGENT_READ_RESULTS: '0', ...options.env },
  });
  try {
    const { web, origin, port } = await startSurface(h);
    return {
      h,
      web,
      origin,
      port,
      async close() {
        await web.stop();
        await h.close();
      },
    };
  } catch (err) {
    await h.close();
    throw err;
  }
}

/** What a page did that it must not: dialogs, requests to another origin, uncaught errors. */
export interface PageWatch {
  dialogs: string[];
  foreign: string[];
  errors: string[];
}

/**
 * Watches a page: every dialog is recorded and dismissed, every request that leaves for another
 * origin than `origin` is recorded (and refused), uncaught errors are recorded.
 */
export async function watchPage(context: BrowserContext, page: Page, origin: string): Promise<PageWatch> {
  const watch: PageWatch = { dialogs: [], foreign: [], errors: [] };
  page.on('dialog', (dialog) => {
    watch.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss().catch(() => undefined);
  });
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) watch.foreign.push(url);
  });
  page.on('pageerror', (err) => watch.errors.push(err.message));
  await context.route(
    (url) => !url.href.startsWith(`${origin}/`) && url.protocol !== 'data:',
    (route) => route.abort('blockedbyclient'),
  );
  return watch;
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  watch: PageWatch;
}

/** How long a test waits for a state the page must reach (the test's own timeout bounds it too). */
export const WAIT = { timeout: 15_000 };

/** A new browser context (a new user: its own cookie jar) with the chat page loaded and ready. */
export async function openChat(
  browser: Browser,
  origin: string,
  options: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    locale: 'en-US',
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  const watch = await watchPage(context, page, origin);
  await load(page, () => page.goto(`${origin}/`));
  return { context, page, watch };
}

/**
 * Loads the page with `go` (goto, reload) and waits until it has drawn its session: the
 * conversation list answered and the composer and Settings shown.
 */
export async function load(page: Page, go: () => Promise<unknown>): Promise<void> {
  const listed = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/api/conversations' && r.request().method() === 'GET',
    WAIT,
  );
  await go();
  const response = await listed;
  if (!response.ok())
    throw new Error(`GET /api/conversations: ${response.status()} ${await response.text()}`);
  await message(page).waitFor(WAIT);
  await page.getByRole('button', { name: 'Settings' }).waitFor(WAIT);
}

/** Reloads the page (same context, so the same cookie) and waits until it is ready. */
export function reload(page: Page): Promise<void> {
  return load(page, () => page.reload());
}

export const message = (page: Page): Locator => page.getByRole('textbox', { name: 'Message' });
export const transcript = (page: Page): Locator => page.getByRole('log');
/** The last turn (answer block) in the transcript. */
export const lastTurn = (page: Page): Locator => transcript(page).locator('article.turn').last();

/** How many turns the transcript showed when the last question was asked, per page. */
const turnsBefore = new WeakMap<Page, number>();

/** Types a question in "Message" and presses Enter, as a user does. */
export async function ask(page: Page, text: string): Promise<void> {
  turnsBefore.set(page, await transcript(page).locator('article.turn').count());
  const box = message(page);
  await box.fill(text);
  await box.press('Enter');
  // The box is cleared once the server took the message.
  await expect.poll(() => box.inputValue(), WAIT).toBe('');
}

/**
 * Waits until the turn the last question started has ended (not busy, Stop gone) and returns it:
 * an earlier turn, already over, never stands in for it.
 */
export async function turnEnded(page: Page): Promise<Locator> {
  const turns = transcript(page).locator('article.turn');
  const before = turnsBefore.get(page) ?? 0;
  await expect.poll(() => turns.count(), WAIT).toBeGreaterThan(before);
  const turn = turns.nth(before);
  await expect.poll(() => turn.getAttribute('aria-busy'), WAIT).toBe('false');
  await expect.poll(() => page.getByRole('button', { name: 'Stop' }).isVisible(), WAIT).toBe(false);
  return turn;
}

/**
 * Opens Settings, lets `change` fill the dialog, saves, and waits until the dialog has closed (the
 * server accepted the settings).
 */
export async function changeSettings(page: Page, change: (dialog: Locator) => Promise<void>): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor(WAIT);
  await change(dialog);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden', ...WAIT });
}

/** The mode's option label in the Settings dialog. */
export const MODE_LABEL = {
  chat: 'Chat — answers directly',
  agent: 'Agent — decides by itself whether to search the web',
  plan: 'Plan — plans the steps first, then carries them out',
} as const;

export async function chooseMode(page: Page, mode: keyof typeof MODE_LABEL): Promise<void> {
  await changeSettings(page, (dialog) =>
    dialog
      .getByLabel('Mode', { exact: true })
      .selectOption({ label: MODE_LABEL[mode] })
      .then(() => undefined),
  );
}

/**
 * Records, in the page, every state the transcript's step blocks and answers go through (a
 * MutationObserver installed through the DevTools protocol, which the CSP does not govern), so a
 * test can tell that a step was open while it ran, or that an answer grew, without racing the
 * stream. Read it with `recorded(page)`.
 */
export async function recordTranscript(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    const log = document.querySelector('[role="log"]');
    window.__steps = [];
    window.__answers = [];
    const take = () => {
      for (const d of log.querySelectorAll('details.step')) {
        window.__steps.push({ id: d.dataset.stepId, cls: d.className, open: d.open });
      }
      const answer = log.querySelector('article.turn:last-of-type .answer');
      const text = answer ? answer.textContent : '';
      if (text && window.__answers.at(-1) !== text) window.__answers.push(text);
    };
    new MutationObserver(take).observe(log, {
      childList: true, subtree: true, characterData: true, attributes: true,
      attributeFilter: ['open', 'class', 'aria-busy'],
    });
  })()`);
}

export interface Recorded {
  steps: Array<{ id: string; cls: string; open: boolean }>;
  answers: string[];
}

export async function recorded(page: Page): Promise<Recorded> {
  return (await page.evaluate('({ steps: window.__steps, answers: window.__answers })')) as Recorded;
}
