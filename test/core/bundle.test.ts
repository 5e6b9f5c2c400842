/**
 * `npm start` runs the esbuild bundle (dist/scout/, scripts/build.mjs), not tsc's per-file output.
 * The bundle is built here into a scratch folder beside dist/scout/ and run as a user runs it, from
 * another working directory: it must answer `--once` with the prompts from the repository, map a
 * provider's failure to exit code 1, keep the quick start's missing-key message, and `--read` pages.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle } from '../../scripts/build.mjs';
import { type FakeOpenAI, startFakeOpenAI, textReply } from '../helpers/fake-openai-server.js';

const root = join(import.meta.dirname, '../..');
const out = join(root, 'dist', `.bundle-test-${process.pid}`);

function run(args: string[], env: Record<string, string>, cwd: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(out, 'main.js'), ...args],
      { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('the bundle npm start runs', { timeout: 60_000 }, () => {
  let llm: FakeOpenAI;
  let elsewhere: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    await bundle(out);
    llm = await startFakeOpenAI();
    elsewhere = mkdtempSync(join(tmpdir(), 'scout-bundle-'));
    env = {
      OPENAI_API_KEY: 'sk-bundle-test',
      OPENAI_BASE_URL: llm.baseUrl,
      AGENT_FUNCTION_CALL_MODEL: 'openai/bundle-model',
      DEFAULT_MODE: 'chat',
      STORE_URL: 'memory://',
    };
  });
  afterAll(async () => {
    await llm?.close();
    rmSync(out, { recursive: true, force: true });
    if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
  });

  it('answers --once with the system prompt read from prompts/', async () => {
    llm.enqueue(textReply('Hello from the bundle.'));
    const result = await run(['--once', 'hi'], env, elsewhere);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Hello from the bundle.');
    const body = llm.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> };
    expect(body.messages[0]?.role).toBe('system');
    expect(body.messages[0]?.content).toContain('You are Scout');
  });

  it('exits 1 when the provider refuses the key', async () => {
    llm.enqueue({ status: 401, body: { error: { message: 'invalid key' } } });
    const result = await run(['--once', 'hello'], env, elsewhere);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toBe('');
  });

  it('says exactly which variable to set when no LLM key is configured', async () => {
    const result = await run(['--once', 'hi'], {}, elsewhere);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No LLM configured: set one of DEEPSEEK_API_KEY, OPENAI_API_KEY');
  });

  it('--read reads a page and a PDF with no key, through the bundled reader worker and PDF reader', async () => {
    const pages = join(root, 'test/fixtures/pages');
    const result = await run(
      ['--read', join(pages, 'product-kettle.html'), join(pages, 'working-paper-free-buses.pdf')],
      {},
      elsewhere,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^==> .*product-kettle\.html <==\nPourover Gooseneck Electric Kettle/);
    expect(result.stdout).toContain('| Capacity | 0.9 L |');
    expect(result.stdout).toMatch(/\n\n==> .*working-paper-free-buses\.pdf <==\nFree Buses/);
  });
});
