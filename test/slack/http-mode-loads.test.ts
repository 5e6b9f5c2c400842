/**
 * What a Slack app in HTTP mode keeps resident (docs/performance.md, Memory): Bolt loads Socket
 * Mode's client as it loads, which brings undici and Node's bundled fetch with its WebAssembly HTTP
 * parser (13-16 MiB). Scout defers that package until a Socket Mode connection is made
 * (adapters/slack/defer-socket-mode.ts); a Socket Mode receiver still gets the real client.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferSocketMode } from '../../adapters/slack/defer-socket-mode.js';
import { type FakeOpenAI, startFakeOpenAI, textReply } from '../helpers/fake-openai-server.js';
import { type FakeSlackApi, startFakeSlackApi } from '../helpers/fake-slack-api.js';
import { DM_CHANNEL, SIGNING_SECRET, spawnScout } from '../ops/spawn-scout.js';

const EXIT_LOG = join(import.meta.dirname, '../helpers/module-log/loaded-at-exit.cjs');
const NODE_FETCH = 'NativeModule internal/deps/undici/undici';

describe('Slack HTTP mode (real process)', { timeout: 60_000 }, () => {
  let llm: FakeOpenAI;
  let slack: FakeSlackApi;
  let dir: string;
  beforeAll(async () => {
    llm = await startFakeOpenAI();
    slack = await startFakeSlackApi();
    dir = mkdtempSync(join(tmpdir(), 'scout-http-loads-'));
  });
  afterAll(async () => {
    await llm?.close();
    await slack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers a turn without loading Socket Mode, undici or Node’s fetch', async () => {
    const log = join(dir, 'loaded.json');
    const scout = await spawnScout({
      NODE_OPTIONS: `--require ${EXIT_LOG}`,
      LOADED_LOG: log,
      OPENAI_API_KEY: 'sk-test-loads-key',
      OPENAI_BASE_URL: llm.baseUrl,
      AGENT_FUNCTION_CALL_MODEL: 'openai/test-model',
      DEFAULT_MODE: 'chat',
      SLACK_BOT_TOKEN: 'xoxb-test-loads-token',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.url,
      STORE_URL: 'memory://',
      // It binds port 0 and says in its log which port it got (no port picked here and then lost).
      LOG_LEVEL: 'info',
    });
    try {
      llm.enqueue(textReply('Answered light.'));
      const ts = '1767377101.000001';
      expect((await scout.dm('Hello there', ts)).status).toBe(200);
      const deadline = Date.now() + 20_000;
      const shown = () =>
        slack
          .messagesIn(DM_CHANNEL, ts)
          .some((m) => `${m.text}${m.chunks.map((c) => c.text ?? '').join('')}`.includes('Answered light.'));
      while (!shown() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(shown(), scout.output()).toBe(true);
    } finally {
      scout.child.kill('SIGTERM');
      await scout.exited;
    }
    const { required, builtins } = JSON.parse(readFileSync(log, 'utf8')) as {
      required: string[];
      builtins: string[];
    };
    // The log sees Bolt and its Web API client, so an empty log cannot pass for a light start.
    expect(required.some((path) => path.includes('/node_modules/@slack/bolt/'))).toBe(true);
    expect(required.some((path) => path.includes('/node_modules/@slack/web-api/'))).toBe(true);
    // Socket Mode's package index is in the cache as the stand-in; its client module is the real load.
    const heavy = /\/node_modules\/(undici\/|@slack\/socket-mode\/dist\/src\/SocketModeClient\.js)/;
    expect(required.filter((path) => heavy.test(path))).toEqual([]);
    expect(builtins).not.toContain(NODE_FETCH);
  });
});

describe('deferSocketMode', () => {
  it("gives Bolt's Socket Mode receiver the real client once it is constructed", () => {
    deferSocketMode();
    const load = createRequire(import.meta.url);
    const bolt = load('@slack/bolt') as typeof import('@slack/bolt');
    const loaded = () => Object.keys(load.cache).filter((path) => path.includes('/node_modules/undici/'));
    expect(loaded()).toEqual([]);
    const receiver = new bolt.SocketModeReceiver({ appToken: 'xapp-1-A000-defer-test' });
    const { SocketModeClient } = load('@slack/socket-mode') as typeof import('@slack/socket-mode');
    expect(receiver.client).toBeInstanceOf(SocketModeClient);
    expect(loaded().length).toBeGreaterThan(0);
  });
});
