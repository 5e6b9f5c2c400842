/**
 * Who the web chat's user is, end to end in a real browser: the session cookie outlives a restart
 * (conversations kept in SQLite come back in the sidebar), and beyond loopback the page asks for the
 * password through its login form.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/env.js';
import { describeBrowser, launchBrowser } from '../helpers/browser.js';
import { type FakeOpenAI, startFakeOpenAI, textReply } from '../helpers/fake-openai-server.js';
import { type FakeSearchServer, startFakeSearchServer } from '../helpers/fake-search-server.js';
import { fakeEnv, startTestScout, type TestScout } from '../helpers/scout-harness.js';
import {
  ask,
  lastTurn,
  load,
  message,
  openChat,
  startSurface,
  startWebChat,
  transcript,
  turnEnded,
  WAIT,
  type WebChat,
  watchPage,
} from '../helpers/web-e2e.js';

describeBrowser('the web chat’s users, end to end', () => {
  let browser: Browser;
  let llm: FakeOpenAI;
  let search: FakeSearchServer;
  let dir: string;

  beforeAll(async () => {
    [browser, llm, search] = await Promise.all([launchBrowser(), startFakeOpenAI(), startFakeSearchServer()]);
    dir = mkdtempSync(join(tmpdir(), 'scout-web-auth-'));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await llm?.close();
    await search?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('after a restart on the same SQLite file, the same browser finds its conversation in the sidebar, whole', {
    timeout: 40_000,
  }, async () => {
    const env = { STORE_URL: `sqlite://${join(dir, 'scout.sqlite')}` };
    let chat: WebChat | undefined = await startWebChat({ env, llm, search });
    const { context, page, watch } = await openChat(browser, chat.origin);
    try {
      llm.enqueue(textReply('The Tagus flows through Lisbon.'));
      await ask(page, 'Which river flows through Lisbon?');
      await turnEnded(page);
      // The tab is closed while Scout restarts (a page left open is another test: stopping must
      // not wait for it); the browser, and its cookie, stay.
      await page.goto('about:blank');
      expect(watch).toEqual({ dialogs: [], foreign: [], errors: [] });
      await chat.close();
      chat = undefined;
      // On a new port (0: the old one may have been taken meanwhile). The cookie is the host's,
      // whatever the port, and the session secret is kept in the SQLite file, so the same browser is
      // still the same user. The page is watched anew for the new origin (the old watch's route
      // would refuse it as foreign).
      chat = await startWebChat({ env, llm, search });
      await context.unrouteAll();
      const rewatch = await watchPage(context, page, chat.origin);
      // A fresh load of the page, no conversation in the address: the sidebar lists it.
      await load(page, () => page.goto(`${chat!.origin}/`));
      const nav = page.getByRole('navigation', { name: 'Conversations' });
      const link = nav.getByRole('link', { name: 'Which river flows through Lisbon?' });
      await link.waitFor(WAIT);
      expect(await transcript(page).getByText('The Tagus').count()).toBe(0);
      await link.click();
      const log = transcript(page);
      await log.getByText('Which river flows through Lisbon?').waitFor(WAIT);
      await lastTurn(page).getByText('The Tagus flows through Lisbon.').waitFor(WAIT);
      // And it goes on: the next question is answered in the same conversation.
      llm.enqueue(textReply('About 1,000 km long.'));
      await ask(page, 'How long is it?');
      await turnEnded(page);
      expect(await log.locator('article.turn').count()).toBe(2);
      expect(JSON.stringify(llm.requests.at(-1)?.body)).toContain('The Tagus flows through Lisbon.');
      expect(rewatch).toEqual({ dialogs: [], foreign: [], errors: [] });
    } finally {
      await context.close();
      await chat?.close();
    }
  });

  it('stopping the web surface does not wait for a page still open on a conversation', async () => {
    const h = await startTestScout({ llm, search });
    const { web, origin } = await startSurface(h);
    const { context, page } = await openChat(browser, origin);
    try {
      // The page's event stream is live: a turn streamed through it.
      llm.enqueue(textReply('Streamed to the open page.'));
      await ask(page, 'Are you streaming?');
      await turnEnded(page);
      // The test's timeout is the bound: stop() must not wait on the browser's reconnecting stream.
      await web.stop();
      expect((await fetch(`${origin}/api/session`).catch((err: Error) => err)) instanceof Error).toBe(true);
    } finally {
      await context.close();
      await web.stop();
      await h.close();
    }
  });

  it('refuses to listen beyond loopback without a login', () => {
    const env = { ...fakeEnv(llm, search), WEB_PORT: '8080', WEB_HOST: '0.0.0.0' };
    expect(checkConfig(env).problems.join('\n')).toMatch(/WEB_PASSWORD/);
    expect(checkConfig({ ...env, WEB_PASSWORD: 'a long enough password' }).problems).toEqual([]);
  });

  it('with WEB_PASSWORD the page sends the browser to /login; a wrong password is refused, the right one logs in', {
    timeout: 30_000,
  }, async () => {
    let h: TestScout | undefined;
    const { config } = checkConfig({
      ...fakeEnv(llm, search),
      WEB_HOST: '127.0.0.1',
      WEB_PASSWORD: 'correct horse battery staple',
    });
    if (!config) throw new Error('the config was refused');
    h = await startTestScout({ llm, search });
    const { web, origin } = await startSurface(h, config);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    try {
      const page = await context.newPage();
      const watch = await watchPage(context, page, origin);
      await page.goto(`${origin}/`);
      expect(new URL(page.url()).pathname).toBe('/login');
      await page.getByLabel('Name').fill('alice');
      await page.getByLabel('Password').fill('wrong password');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('alert').filter({ hasText: 'Wrong password.' }).waitFor(WAIT);
      expect(new URL(page.url()).pathname).toBe('/login');
      expect((await context.cookies()).map((c) => c.name)).not.toContain('scout_session');
      // The API is closed too.
      expect((await page.request.get(`${origin}/api/conversations`)).status()).toBe(401);
      await page.getByLabel('Name').fill('alice');
      await page.getByLabel('Password').fill('correct horse battery staple');
      await load(page, () => page.getByRole('button', { name: 'Log in' }).click());
      expect(new URL(page.url()).pathname).toBe('/');
      // Logged in: the chat works, and Log out is offered.
      llm.enqueue(textReply('Hello, Alice.'));
      await ask(page, 'Hello?');
      await turnEnded(page);
      expect(await lastTurn(page).getByText('Hello, Alice.').isVisible()).toBe(true);
      const logout = page.getByRole('button', { name: 'Log out' });
      expect(await logout.isVisible()).toBe(true);
      await logout.click();
      await page.waitForURL(`${origin}/login`, WAIT);
      await page.goto(`${origin}/`);
      expect(new URL(page.url()).pathname).toBe('/login');
      expect(await message(page).count()).toBe(0);
      expect(watch).toEqual({ dialogs: [], foreign: [], errors: [] });
    } finally {
      await context.close();
      await web.stop();
      await h?.close();
      h = undefined;
    }
  });
});
