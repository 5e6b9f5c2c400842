/**
 * Vitest global setup: says once, in one line, which recorded-fixture folders are absent (their tests
 * are then skipped), and stops the run under CI=true, where their absence is a failure.
 */
import { inCi, missingShared, sharedLabel, sharedMissingInCiMessage } from './shared-folders.js';

/** Set once the line is printed: the root config and each project (unit, e2e) run this setup. */
const SAID = Symbol.for('scout.sharedFoldersSaid');

export default function checkSharedFolders(): void {
  const missing = missingShared();
  if (missing.length === 0) return;
  if (inCi()) throw new Error(sharedMissingInCiMessage(missing));
  const said = globalThis as { [SAID]?: boolean };
  if (said[SAID]) return;
  said[SAID] = true;
  console.warn(
    `Skipping the tests that replay recordings: ${missing.map(sharedLabel).join(' and ')} not found beside the repository (README › Tests says how to get the full suite).`,
  );
}
