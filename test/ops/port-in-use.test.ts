/**
 * A PORT something else already listens on: Scout stops at start with a message that names PORT and
 * what to do, in Slack HTTP mode (the real process) and for the health/metrics server.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpsServer } from '../../src/ops/http-server.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { Readiness } from '../../src/ops/readiness.js';
import { silentLogger } from '../../src/silent-logger.js';
import { type FakeOpenAI, startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { type FakeSlackApi, startFakeSlackApi } from '../helpers/fake-slack-api.js';
import { SIGNING_SECRET, spawnScout } from './spawn-scout.js';

describe('a port already in use', { timeout: 60_000 }, () => {
  let llm: FakeOpenAI;
  let slack: FakeSlackApi;
  let squatter: Server;
  let port: number;
  beforeAll(async () => {
    llm = await startFakeOpenAI();
    slack = await startFakeSlackApi();
    squatter = createServer((_req, res) => res.end('someone else'));
    await new Promise<void>((resolve) => squatter.listen(0, resolve));
    port = (squatter.address() as { port: number }).port;
  });
  afterAll(async () => {
    await llm?.close();
    await slack?.close();
    await new Promise((resolve) => squatter?.close(resolve));
  });

  it('Slack HTTP mode exits at start naming PORT', async () => {
    const started = spawnScout(
      {
        OPENAI_API_KEY: 'sk-test-port-key',
        OPENAI_BASE_URL: llm.baseUrl,
        AGENT_FUNCTION_CALL_MODEL: 'openai/test-model',
        SLACK_BOT_TOKEN: 'xoxb-test-port-token',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: slack.url,
        SEARCH_PROVIDER: 'none',
        STORE_URL: 'memory://',
        LOG_LEVEL: 'warn',
      },
      port,
    );
    // spawnScout waits for /healthz, which the squatter answers with 200: wait for the exit instead.
    const scout = await started.catch((err: Error) => err);
    let output: string;
    if (scout instanceof Error) output = scout.message;
    else {
      expect(await scout.exited).toBe(1);
      output = scout.output();
    }
    expect(output).toContain(
      `Slack HTTP mode: port ${port} is already in use. Stop what listens there, or set PORT to a free port.`,
    );
    expect(output).not.toContain('EADDRINUSE');
  });

  it('the health and metrics server refuses to start naming PORT', async () => {
    await expect(
      startOpsServer({
        port,
        readiness: new Readiness(),
        metrics: createMetrics({ defaultMetrics: false }),
        logger: silentLogger,
      }),
    ).rejects.toThrow(`Health and metrics server: port ${port} is already in use`);
  });
});
