/**
 * SIGTERM during a turn, on the real process in Slack HTTP mode (fake Slack Web API, slow fake LLM):
 * intake stops, the running turn finishes (or, past SHUTDOWN_GRACE_MS, ends as "Stopped"), and the
 * process exits 0.
 */
import { describe, expect, it } from 'vitest';
import { textReply } from '../helpers/fake-openai-server.js';
import { scoutOnFakes } from './spawn-scout.js';

const PROCESS_TEST_TIMEOUT_MS = 60_000;

describe('SIGTERM during a turn (real process)', () => {
  const fakes = scoutOnFakes();
  const env = (graceMs: number) => fakes.env({ SHUTDOWN_GRACE_MS: String(graceMs) });

  it(
    'lets the running turn finish, then exits 0',
    async () => {
      const { llm } = fakes;
      const scout = await fakes.spawn(env(20_000));
      // /metrics rides on the Slack receiver's port too.
      expect((await fetch(`${scout.url}/metrics`)).status).toBe(200);
      llm.enqueue(textReply('The slow answer arrives in full.', { chunkDelayMs: 400 }));
      const ts = '1767377001.000001';
      expect((await scout.dm('Tell me slowly', ts)).status).toBe(200);
      await waitFor(() => llm.requests.length === 1, 'the model call');

      scout.child.kill('SIGTERM');
      const code = await scout.exited;
      expect(code, scout.output()).toBe(0);
      expect(fakes.shownIn(ts)).toContain('The slow answer arrives in full.');
      expect(fakes.shownIn(ts)).not.toContain('Stopped');
      expect(scout.output()).toContain('shutting down');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'cancels a turn still running past SHUTDOWN_GRACE_MS, shows it as stopped, and exits 0',
    async () => {
      const { llm } = fakes;
      const scout = await fakes.spawn(env(300));
      llm.enqueue({ hang: true });
      const ts = '1767377002.000002';
      expect((await scout.dm('This will never be answered', ts)).status).toBe(200);
      await waitFor(() => llm.requests.length === 1, 'the model call');

      scout.child.kill('SIGTERM');
      const code = await scout.exited;
      expect(code, scout.output()).toBe(0);
      expect(fakes.shownIn(ts)).toContain('Stopped');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
