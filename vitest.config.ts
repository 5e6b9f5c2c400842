import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One line when ../shared/fixtures or ../shared/replays is absent (their tests skip); a failure under CI=true.
    globalSetup: ['test/helpers/shared-folder-setup.ts'],
    // Real HTTP fakes on loopback and a real Redis: give slow CI machines room, but fail hangs.
    testTimeout: 20_000,
    // Under CI a test that fails gets one more try: a loopback timing test can lose a race on a loaded
    // 2-core machine. Deterministic failures still fail, and .ci/run names every test that needed
    // its retry (scripts/ci/outcome-reporter.mjs), so flakiness is reported, not hidden.
    retry: process.env.CI === 'true' ? 1 : 0,
    hookTimeout: 20_000,
    pool: 'forks',
    // Tests that use the shared Redis namespace their keys, so files may run in parallel.
    fileParallelism: true,
  },
});
