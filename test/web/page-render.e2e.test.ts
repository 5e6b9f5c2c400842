/**
 * The web page alone in a real browser (chromium through playwright-core): a fresh build of
 * adapters/web/client served with the real CSP, the JSON API answered by page.route and the event
 * stream written by the test. It checks what the page draws from the protocol's shapes (steps open
 * while running and folded when collapsed, citations, footer, Stop, plan and tool confirmations),
 * the accessible contract of PROTOCOL.md, and that nothing a model writes runs or loads.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { checkA11y, describeBrowser, launchBrowser } from '../helpers/browser.js';
import { type ApiCall, type ApiHandler, mockApi, type PageServer, startPageServer } from '../helpers/web-page.js';

/** SCOUT_WEB_SCREENSHOTS=<folder> keeps a PNG of each rendering test, for a look by eye. */
const shots = process.env.SCOUT_WEB_SCREENSHOTS;

const step = (id: string, kind: string, title: string, status: string, collapsed: boolean, body = '') => ({
  id,
  kind,
  title,
  body,
  status,
  collapsed,
});

const finishedTurn = {
  id: 't1',
  steps: [
    step('s1', 'thinking', '💡 Thought for 4 s', 'done', true, 'The user asks about **Rust**.'),
    step('s2', 'search', '🔍 rust vs go', 'done', true),
    step('s3', 'notice', 'ℹ️ History trimmed', 'info', false, 'Older messages were left out.'),
  ],
  answer:
    'Rust is fast [[1]](https://example.com/rust) and Go is simple [[2]](https://example.org/go).\n\n' +
    '| Lang | GC |\n|---|---|\n| Rust | no |\n| Go | yes |\n\n```ts\nconst x: number = 1;\n```\n\n' +
    '**References**\n1. [Rust](https://example.com/rust)\n2. [Go](https://example.org/go)',
  answerFinal: true,
  sources: [
    { n: 1, title: 'Rust', url: 'https://example.com/rust' },
    { n: 2, title: 'Go', url: 'https://example.org/go' },
  ],
  status: null,
  footer: '🔧 deepseek/deepseek-chat · 1.2k tok · 3.4 s',
  done: true,
  cancelled: false,
};

describeBrowser('web page rendering', () => {
  let server: PageServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let foreign: string[];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startPageServer(), launchBrowser()]);
    if (shots) mkdirSync(shots, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1100, height: 800 }, locale: 'en-US' });
    page = await context.newPage();
    foreign = [];
    // Every request must stay on the page's origin: anything else is recorded and refused.
    await context.route(
      (url) => !url.href.startsWith(server.origin) && !url.href.startsWith('data:'),
      (route) => {
        foreign.push(route.request().url());
        return route.abort();
      },
    );
    await page.addInitScript(() => {
      const w = window as unknown as { __csp: string[] };
      w.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
  });

  afterEach(async (ctx) => {
    if (shots) await page.screenshot({ path: join(shots, `${ctx.task.name.replace(/\W+/g, '-')}.png`), fullPage: true });
    await context.close();
  });

  async function open(hash: string, handler?: ApiHandler): Promise<ApiCall[]> {
    const calls = await mockApi(page, handler);
    await page.goto(`${server.origin}/${hash}`);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    return calls;
  }

  it('draws a finished turn: folded steps, open notice, citations, table, code and footer', async () => {
    await open('#/c/c1', (call) =>
      call.path === '/api/conversations/c1' && call.method === 'GET'
        ? {
            json: {
              id: 'c1',
              title: 'Rust vs Go',
              entries: [
                { kind: 'user', text: 'Rust or Go?', at: 1 },
                { kind: 'turn', turn: finishedTurn, at: 2 },
              ],
              turn: null,
            },
          }
        : undefined,
    );
    const log = page.getByRole('log');
    await expect.poll(() => log.locator('details').count()).toBe(3);
    expect(await log.locator('details[open]').count()).toBe(1);
    expect(await log.locator('details[open] summary').innerText()).toContain('History trimmed');
    const cites = log.locator('a.cite');
    expect(await cites.count()).toBe(2);
    expect(await cites.first().getAttribute('href')).toBe('https://example.com/rust');
    expect(await cites.first().getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(await log.locator('table').count()).toBe(1);
    expect(await log.locator('code.language-ts .hljs-keyword').count()).toBeGreaterThan(0);
    expect(await log.locator('.footer').innerText()).toContain('deepseek/deepseek-chat');
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    expect(await page.locator('a[aria-current="page"]').innerText()).toBe('Rust vs Go');
    expect(await page.evaluate('window.__csp')).toEqual([]);
    expect(foreign).toEqual([]);
  });
});
