/**
 * Vitest global setup: says once, in one line, which recorded-fixture folders are absent (their tests
 * are then skipped), and stops the run under CI=true, where their absence is a failure. Says once,
 * too, that the tests that need a real Redis skip when REDIS_URL is unset (.ci/run always sets it).
 */
import { inCi, missingShared, sharedLabel, sharedMissingInCiMessage } from './shared-folders.js';

/** Set once the lines are printed: the root config and each project (unit, e2e) run this setup. */
const SAID = Symbol.for('scout.globalSetupSaid');

export default function checkSharedFolders(): void {
  const missing = missingShared();
  if (missing.length > 0 && inCi()) throw new Error(sharedMissingInCiMessage(missing));
  const said = globalThis as { [SAID]?: boolean };
  if (said[SAID]) return;
  said[SAID] = true;
  if (missing.length > 0)
    console.warn(
      `Skipping the tests that replay recordings: ${missing.map(sharedLabel).join(' and ')} not found beside the repository (README › Tests says how to get the full suite).`,
    );
  if (!process.env.REDIS_URL)
    console.warn(
      'Skipping the tests that need a real Redis: REDIS_URL is not set (e.g. REDIS_URL=redis://127.0.0.1:6379; README › Tests).',
    );
}
