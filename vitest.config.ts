import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One line when ../shared/fixtures or ../shared/replays is absent (their tests skip); a failure under CI=true.
    globalSetup: ['test/helpers/shared-folder-setup.ts'],
    // Real HTTP fakes on loopback and a real Redis: give slow CI machines room, but fail hangs.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Tests that use the shared Redis namespace their keys, so files may run in parallel.
    fileParallelism: true,
  },
});
