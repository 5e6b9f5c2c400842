/**
 * Real recorded payloads from `../shared/fixtures` (CI clones the shared folder beside the repo).
 * See `/work/shared/fixtures/README.md` for what each file holds and where it came from.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const sharedFixturesDir = path.resolve(repoRoot, '../shared/fixtures');

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

/** Names (without `.chunks.txt`) of every recorded provider stream. */
export function listChunkFixtures(): string[] {
  return readdirSync(path.join(sharedFixturesDir, 'providers'))
    .filter((file) => file.endsWith('.chunks.txt'))
    .map((file) => file.replace(/\.chunks\.txt$/, ''))
    .sort();
}

/** A JSON fixture such as "slack/dm.json" or "discord/gateway-events.json". */
export function loadJsonFixture<T = unknown>(relativePath: string): T {
  return JSON.parse(readFileSync(path.join(sharedFixturesDir, relativePath), 'utf8')) as T;
}
