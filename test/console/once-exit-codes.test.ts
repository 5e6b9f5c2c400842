/**
 * `--once` exit codes as scripts read them: 0 answered and saved, 1 failed, 2 partial or not saved.
 * Driven through runOnce with the real core (scripted model) and real stores.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ONCE_EXIT, onceExitCode, runOnce } from '../../adapters/console/console-surface.js';
import { emptyView } from '../../src/render/view.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { openReadOnlySqlite, type ReadOnlySqlite } from '../helpers/read-only-sqlite.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';

const sinkOutput = () => {
  const written: string[] = [];
  return { write: (s: string) => written.push(s), text: () => written.join('') };
};

let h: TestScout | undefined;
let ro: ReadOnlySqlite | undefined;
afterEach(async () => {
  await h?.close();
  await ro?.close();
  h = undefined;
  ro = undefined;
});

describe('--once exit codes', () => {
  it('0 when the answer is shown and saved', async () => {
    h = await startTestScout();
    h.llm.enqueue(textReply('All good.'));
    const out = sinkOutput();
    expect(await runOnce(h.scout, 'hello', out)).toBe(ONCE_EXIT.answered);
    expect(out.text()).toContain('All good.');
  });

  it('1 when the model fails and nothing is answered', async () => {
    h = await startTestScout();
    h.llm.enqueue({ status: 401, body: { error: { message: 'invalid key' } } });
    expect(await runOnce(h.scout, 'hello', sinkOutput(), undefined, sinkOutput())).toBe(ONCE_EXIT.failed);
  });

  it('1 when MAX_TURNS_PER_USER refuses the turn: the refusal on stderr, nothing on stdout', async () => {
    h = await startTestScout({ env: { MAX_TURNS_PER_USER: '1' } });
    // The same terminal user's first answer is still running (its model never answers).
    h.llm.enqueue({ hang: true });
    const running = runOnce(h.scout, 'first', sinkOutput(), 'once:first', sinkOutput());
    await vi.waitFor(() => expect(h?.llm.requests).toHaveLength(1), { timeout: 10_000 });
    const out = sinkOutput();
    const errors = sinkOutput();
    expect(await runOnce(h.scout, 'second', out, 'once:second', errors)).toBe(ONCE_EXIT.failed);
    expect(errors.text()).toContain('already have 1 answer running');
    expect(out.text()).toBe('');
    h.scout.cancel('once:first');
    expect(await running).toBe(ONCE_EXIT.failed);
  });

  it('2 when the answer is shown but storage refused to save it', async (context) => {
    const opened = await openReadOnlySqlite();
    if ('unavailable' in opened) return context.skip();
    ro = opened;
    h = await startTestScout({ stores: ro.stores });
    h.llm.enqueue(textReply('Shown, not saved.'));
    const out = sinkOutput();
    expect(await runOnce(h.scout, 'hello', out)).toBe(ONCE_EXIT.partial);
    expect(out.text()).toContain('Shown, not saved.');
    expect(out.text()).toMatch(/not saved/);
  });

  it('2 when an answer was shown but cut short (an error or Stop after some text)', () => {
    const view = { ...emptyView(), answer: 'The first part', done: true };
    expect(onceExitCode({ ...view, error: 'The model stopped.' }, false)).toBe(ONCE_EXIT.partial);
    expect(onceExitCode({ ...view, cancelled: true }, false)).toBe(ONCE_EXIT.partial);
    expect(onceExitCode(undefined, true)).toBe(ONCE_EXIT.failed);
    expect(onceExitCode(undefined, false)).toBe(ONCE_EXIT.answered);
  });
});
