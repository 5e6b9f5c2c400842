/**
 * Where the recorded fixtures live (`../shared/fixtures`, `../shared/replays`, beside the repository)
 * and whether they are there. No vitest import: the global setup uses it in the main process.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * `../shared` unless SCOUT_SHARED_DIR names another folder: `.ci/run` points it at an empty one to prove
 * that a plain clone (no `../shared`) passes with its skips.
 */
export const sharedDir = path.resolve(repoRoot, process.env.SCOUT_SHARED_DIR || '../shared');
export const sharedFixturesDir = path.join(sharedDir, 'fixtures');
export const sharedReplaysDir = path.join(sharedDir, 'replays');

export type SharedFolder = 'fixtures' | 'replays';

const folderPath: Record<SharedFolder, string> = { fixtures: sharedFixturesDir, replays: sharedReplaysDir };

/** CI sets CI=true (GitHub, GitLab, our `.ci/run`); any value but "", "0" and "false" counts. */
export function inCi(): boolean {
  const value = (process.env.CI ?? '').trim().toLowerCase();
  return value !== '' && value !== '0' && value !== 'false';
}

/** The folders, among those asked, that are absent; `[]` when every one is there. */
export function missingShared(folders: readonly SharedFolder[] = ['fixtures', 'replays']): SharedFolder[] {
  return folders.filter((folder) => !existsSync(folderPath[folder]));
}

/** `../shared/<folder>` as users see it in messages (relative to the repository root, or as overridden). */
export function sharedLabel(folder: SharedFolder): string {
  return `${process.env.SCOUT_SHARED_DIR || '../shared'}/${folder}`;
}

/** The error CI reports when a shared folder is absent: names the folder and where it is looked for. */
export function sharedMissingInCiMessage(folders: readonly SharedFolder[]): string {
  const names = folders.map(sharedLabel).join(' and ');
  return `${names} not found beside the repository (looked in ${sharedDir}); CI=true requires the recorded fixtures, so these tests fail instead of skipping. See README › Tests.`;
}
