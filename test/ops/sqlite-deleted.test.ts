/**
 * The SQLite file deleted (or replaced) under a running Scout: the real process in Slack HTTP mode on
 * a file in a temporary folder. Deleting it must not go unnoticed — /healthz turns 503 naming the
 * store and why, the log says what happened once (naming the file), and the next message is told
 * storage is unavailable, instead of answers going on as if history were kept until a restart loses it.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { textReply } from '../helpers/fake-openai-server.js';
import { DM_CHANNEL, type ScoutProcess, scoutOnFakes } from './spawn-scout.js';

const PROCESS_TEST_TIMEOUT_MS = 60_000;

describe('the SQLite file deleted under a running Scout (real process)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'scout-sqlite-deleted-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  // Registered after the folder's hooks: its clean-up (Scout killed, its exit awaited) runs first.
  const fakes = scoutOnFakes();

  const start = async () => {
    const file = join(dir, 'scout.sqlite');
    const scout = await fakes.spawn(fakes.env({ STORE_URL: `sqlite://${file}` }));
    return { file, scout };
  };

  const healthz = async (s: ScoutProcess) => {
    const res = await fetch(`${s.url}/healthz`);
    return { status: res.status, body: (await res.json()) as { checks?: Record<string, unknown> } };
  };

  const waitFor = async (ok: () => boolean, what: string, ms = 15_000) => {
    const deadline = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${fakes.scout?.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  for (const how of ['deleted', 'replaced by another file'] as const) {
    it(
      `${how}: /healthz answers 503 at once, the log says so once, and the next message is told storage is unavailable`,
      async () => {
        const { llm, slack } = fakes;
        const { file, scout: s } = await start();
        llm.fallback = textReply('Paris is the capital of France.');
        expect((await s.dm('Capital of France?', '1712000000.000100')).status).toBe(200);
        await waitFor(
          () => fakes.shownIn('1712000000.000100').includes('Paris is the capital'),
          'the first answer',
        );
        expect((await healthz(s)).status).toBe(200);

        if (how === 'deleted') rmSync(file);
        else {
          // What a restore from a backup or a careless copy does: a new file at the same path.
          writeFileSync(`${file}.new`, '');
          renameSync(`${file}.new`, file);
        }
        // At once: a probe every few seconds must not report a lost store as healthy.
        const after = await healthz(s);
        expect(after.status).toBe(503);
        expect(JSON.stringify(after.body.checks?.['store'])).toMatch(/deleted or replaced/);

        // The message cannot even be recorded: the user is told storage is unavailable, not silence
        // and not an answer that would be forgotten.
        expect((await s.dm('And of Italy?', '1712000000.000200')).status).toBe(200);
        const toUser = () =>
          [...slack.callsTo('chat.postEphemeral'), ...slack.callsTo('chat.postMessage')]
            .filter((c) => c.args.channel === DM_CHANNEL)
            .map((c) => `${c.args.text ?? ''} ${JSON.stringify(c.args.blocks ?? [])}`)
            .join('\n');
        await waitFor(() => /storage is unavailable/.test(toUser()), 'the store failure message');
        expect(llm.requests).toHaveLength(1);
        expect((await healthz(s)).status).toBe(503);
        // One line names the file and what happened; the failures it causes say why without the path.
        const logged = s
          .output()
          .split('\n')
          .filter((line) => line.includes(file) && line.includes('deleted or replaced'));
        expect(logged).toHaveLength(1);
      },
      PROCESS_TEST_TIMEOUT_MS,
    );
  }
});
