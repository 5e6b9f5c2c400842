/**
 * A real browser for the web page's tests: Debian's chromium driven by playwright-core (no bundled
 * browser download), and axe-core for accessibility. Where chromium is missing the browser tests skip
 * with one line saying why, except under CI, where its absence is a failure.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';
import { describe } from 'vitest';
import { inCi } from './shared-folders.js';

/** CHROMIUM_PATH overrides Debian's /usr/bin/chromium. */
export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Why browser tests cannot run here, or undefined when they can. */
export function browserMissing(): string | undefined {
  return existsSync(chromiumPath)
    ? undefined
    : `chromium not found at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`;
}

/**
 * `describe` for browser tests: skipped with one line when chromium is absent, failing under CI.
 */
export function describeBrowser(name: string, body: () => void): void {
  const missing = browserMissing();
  if (!missing) {
    describe(name, body);
    return;
  }
  if (inCi()) throw new Error(`Browser tests need chromium under CI: ${missing}`);
  console.warn(`Skipping browser tests (${name}): ${missing}.`);
  describe.skip(name, body);
}

/** Headless chromium; --no-sandbox only as root, where chromium refuses to start sandboxed. */
export async function launchBrowser(): Promise<Browser> {
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [...(asRoot ? ['--no-sandbox'] : []), '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

export interface A11yViolation {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

let axeSource: string | undefined;

/**
 * Runs axe-core in the page and returns its serious and critical violations. The source goes in
 * through page.evaluate (the DevTools protocol, which the page's CSP does not govern): a script tag
 * would be refused by script-src 'self', and the page must be tested with its real CSP.
 */
export async function checkA11y(page: Page): Promise<A11yViolation[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(`
    axe.run(document, { resultTypes: ['violations'] }).then((r) =>
      r.violations.map((v) => ({
        id: v.id,
        impact: v.impact || '',
        help: v.help,
        nodes: v.nodes.map((n) => n.target.join(' ')),
      })),
    )
  `)) as A11yViolation[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
