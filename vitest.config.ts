import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Two suites (README › Tests):
 * - `unit` (`npm test`): unit and in-process integration tests — fakes on loopback, no child process,
 *   no real server, no seconds of real time. Minutes on a laptop.
 * - `e2e` (`npm run test:e2e`): files that start real processes (Scout itself, MCP servers, shards,
 *   llama-server, a browser), need a real Redis, or run for seconds of real time (benchmarks, pacing
 *   at Slack's own intervals). `.ci/run` runs both.
 *
 * A new end-to-end file is named `*.e2e.test.ts`; the files listed in E2E_FILES predate that
 * convention (renaming them would break the links to them from docs and issues).
 * `vitest run <file>` runs any file in the suite it belongs to.
 */
/**
 * End-to-end files that run alone, after the rest of the e2e suite (project `e2e:alone`, one worker):
 * the benchmarks against a peer bot, which hold 50 turns at once in two bot processes for a minute.
 * Beside a browser test on two cores they outran their 240 s bound.
 */
export const E2E_ALONE_FILES = [
  'test/bench/bench-peer-cpu-rounds.test.ts',
  'test/bench/bench-tracing-pair.test.ts',
];
export const E2E_FILES = [
  ...E2E_ALONE_FILES,
  // Scout itself in a child process (`node --import tsx src/main.ts`, the bundle, `npm start`).
  'test/console/chat-process.test.ts',
  'test/console/console-input-queue.test.ts',
  'test/console/console-turns.test.ts',
  'test/core/bundle.test.ts',
  'test/core/cli.test.ts',
  'test/core/read-cli.test.ts',
  'test/core/start-loads.test.ts',
  'test/core/start-script.test.ts',
  'test/http/accept-thread.test.ts',
  'test/http/keep-alive.test.ts',
  'test/ops/idle-collection-process.test.ts',
  'test/ops/log-secrets.test.ts',
  'test/ops/otel-process.test.ts',
  'test/ops/port-in-use.test.ts',
  'test/ops/shutdown.test.ts',
  'test/ops/sqlite-deleted.test.ts',
  'test/slack/http-mode-loads.test.ts',
  'test/scale/scale-buttons.test.ts',
  'test/scale/scale-out.test.ts',
  // A PDF parser in a child process with a memory cap.
  'test/context/pdf-bomb.test.ts',
  // MCP servers over stdio and HTTP: server-everything from npm and the fixture server.
  'test/mcp/mcp-agent.test.ts',
  'test/mcp/mcp-cli.test.ts',
  'test/mcp/mcp-servers.test.ts',
  'test/mcp/slack-approval.test.ts',
  // A real Redis (REDIS_URL; skipped without it).
  'test/budget/budget-redis.test.ts',
  'test/core/lock-lease.test.ts',
  'test/store/redis-scale-out.test.ts',
  'test/store/redis-store.test.ts',
  // Seconds of real time: every surface through whole turns, Slack's own edit intervals.
  'test/conformance/conformance.test.ts',
  'test/slack/slack-stream-pacing.test.ts',
  'test/slack/slack-workspace-pacing.test.ts',
];
const E2E = ['test/**/*.e2e.test.ts', ...E2E_FILES];

/**
 * Unit files that get a process of their own (project `unit:isolated`, part of `npm test`): the
 * Discord /usage test's chart (sharp) never came back in 2 of 5 runs when the file shared its
 * process with others (the deferred reply sent, the edit never), and always did alone.
 */
export const UNIT_ISOLATED_FILES = ['test/budget/usage-command.test.ts'];
const UNIT_WORKERS = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    // One line when ../shared/fixtures or ../shared/replays is absent (their tests skip); a failure under CI=true.
    globalSetup: ['test/helpers/shared-folder-setup.ts'],
    // Real HTTP fakes on loopback and a real Redis: give slow CI machines room, but fail hangs.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // expect.poll waits for a state (a browser repaint after an SSE push, a child's reply) for up to
    // 10 s, not vitest's 1 s: on a loaded machine those round trips take longer, and a state that
    // never comes still fails.
    expect: { poll: { timeout: 10_000 } },
    // No retry, under CI too (issue 57): tests wait on events and take their bounds from timers, not
    // from how fast the machine is, so a failure on a busy machine is a failure to look at.
    retry: 0,
    pool: 'forks',
    // Tests that use the shared Redis namespace their keys, so files may run in parallel.
    fileParallelism: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...E2E, ...UNIT_ISOLATED_FILES],
          // Measured on a 2-core machine (README › Tests): with a fresh process per file, loading the
          // modules again for each of ~170 files was two thirds of the suite's CPU (171 s of CPU,
          // 597 s wall at load 12; without isolation 60 s of CPU, 122 s wall). Unit files restore
          // what they change (process.env, fake timers) in their hooks, so they share a process per
          // worker. Two workers even on two cores: most of a file's time is waiting on loopback.
          isolate: false,
          maxWorkers: UNIT_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'unit:isolated',
          include: UNIT_ISOLATED_FILES,
          isolate: true,
          maxWorkers: UNIT_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
          exclude: E2E_ALONE_FILES,
          // Child processes, global SDK state: a fresh process per file. Two workers on two cores
          // too: most of these files wait on their child processes (CI time, README › Tests).
          isolate: true,
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e:alone',
          include: E2E_ALONE_FILES,
          isolate: true,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
