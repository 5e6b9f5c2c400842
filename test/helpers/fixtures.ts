/**
 * Real recordings from `../shared/fixtures` (provider streams, Slack/Discord payloads) and
 * `../shared/replays` (whole provider exchanges). They were recorded by other projects and live in a
 * folder beside the repository, never inside it: CI clones it there, a plain clone has none.
 *
 * Tests that read them wrap themselves in `describeWithShared` / `itWithShared`:
 * - folder present: the tests run;
 * - folder absent: they are reported as skipped (the global setup prints one line naming the folder);
 * - folder absent under `CI=true`: they fail, naming the folder, so CI can never pass by skipping.
 *
 * See `/work/shared/fixtures/README.md` for what each file holds and where it came from.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestFunction } from 'vitest';
import {
  inCi,
  missingShared,
  type SharedFolder,
  sharedFixturesDir,
  sharedLabel,
  sharedMissingInCiMessage,
  sharedReplaysDir,
} from './shared-folders.js';

export {
  inCi,
  missingShared,
  repoRoot,
  type SharedFolder,
  sharedFixturesDir,
  sharedLabel,
  sharedMissingInCiMessage,
  sharedReplaysDir,
} from './shared-folders.js';

function gate(folder: SharedFolder): 'run' | 'skip' | 'fail' {
  if (missingShared([folder]).length === 0) return 'run';
  return inCi() ? 'fail' : 'skip';
}

/**
 * `describe` for a suite that reads `../shared/<folder>`: runs when the folder is there, is skipped
 * when it is absent, and fails (one test naming the folder) when it is absent under CI=true.
 */
export function describeWithShared(name: string, body: () => void, folder: SharedFolder = 'fixtures'): void {
  const mode = gate(folder);
  if (mode === 'run') describe(name, body);
  else if (mode === 'skip') describe.skip(`${name} (needs ${sharedLabel(folder)})`, body);
  else
    describe(name, () => {
      it(`needs ${sharedLabel(folder)}`, () => {
        throw new Error(sharedMissingInCiMessage([folder]));
      });
    });
}

/** `it` for one test that reads `../shared/<folder>`; same rules as `describeWithShared`. */
export function itWithShared(
  name: string,
  body: TestFunction,
  timeoutOrFolder?: number | SharedFolder,
  folder: SharedFolder = typeof timeoutOrFolder === 'string' ? timeoutOrFolder : 'fixtures',
): void {
  const timeout = typeof timeoutOrFolder === 'number' ? timeoutOrFolder : undefined;
  const mode = gate(folder);
  if (mode === 'run') it(name, body, timeout);
  else if (mode === 'skip') it.skip(`${name} (needs ${sharedLabel(folder)})`, () => {});
  else
    it(name, () => {
      throw new Error(sharedMissingInCiMessage([folder]));
    });
}

/**
 * Suites are collected even when skipped, so a read at collection time (module level or a
 * `describe` body) must not crash when the folder is absent: outside CI it yields `fallback`, which no
 * test ever sees because every test reading it is skipped. Under CI the read throws as usual.
 */
function readShared<T>(folder: SharedFolder, read: () => T, fallback: T): T {
  if (gate(folder) === 'skip') return fallback;
  return read();
}

/**
 * The chunks of one provider stream (`providers/<name>.chunks.txt`), each line parsed as JSON.
 * `name` may be "openai-text", "openai-text.chunks.txt" or "providers/openai-text.chunks.txt".
 */
export function loadChunkFixture(name: string): unknown[] {
  const base = name.replace(/^providers\//, '').replace(/\.chunks\.txt$/, '');
  const text = readFileSync(path.join(sharedFixturesDir, 'providers', `${base}.chunks.txt`), 'utf8');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** Names (without `.chunks.txt`) of every recorded provider stream; `[]` when skipped (see above). */
export function listChunkFixtures(): string[] {
  return readShared(
    'fixtures',
    () =>
      readdirSync(path.join(sharedFixturesDir, 'providers'))
        .filter((file) => file.endsWith('.chunks.txt'))
        .map((file) => file.replace(/\.chunks\.txt$/, ''))
        .sort(),
    [],
  );
}

/**
 * A JSON fixture such as "slack/dm.json" or "discord/gateway-events.json". When the tests reading it
 * are skipped (folder absent, not CI) it returns `whenSkipped` (default `{}`), so module-level reads
 * such as `mention.event.channel` still let the file be collected.
 */
export function loadJsonFixture<T = unknown>(relativePath: string, whenSkipped: T = {} as T): T {
  return readShared(
    'fixtures',
    () => JSON.parse(readFileSync(path.join(sharedFixturesDir, relativePath), 'utf8')) as T,
    whenSkipped,
  );
}

/** A recorded exchange from `../shared/replays` (e.g. "openai-tool-loop.json"). */
export function loadReplay<T = unknown>(name: string): T {
  const file = name.endsWith('.json') ? name : `${name}.json`;
  return readShared(
    'replays',
    () => JSON.parse(readFileSync(path.join(sharedReplaysDir, file), 'utf8')) as T,
    {} as T,
  );
}
