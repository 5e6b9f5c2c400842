/**
 * Traces from the real process (issue 29): `src/main.ts` in Slack HTTP mode with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at a loopback OTLP receiver. An agent turn in a DM arrives as
 * one trace with the Slack surface on it, the spans left at SIGTERM are flushed before the process
 * exits, and the JSON log lines the turn wrote carry its trace id. The same process without the
 * variable loads no OpenTelemetry package (test/core/start-loads.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeOpenAI,
  openAIErrorBody,
  startFakeOpenAI,
  textReply,
  toolCallReply,
} from '../helpers/fake-openai-server.js';
import { type FakeSearchServer, startFakeSearchServer } from '../helpers/fake-search-server.js';
import { type FakeSlackApi, startFakeSlackApi } from '../helpers/fake-slack-api.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { runMain } from '../helpers/run-main.js';
import { DM_CHANNEL, SIGNING_SECRET, type ScoutProcess, spawnScout } from './spawn-scout.js';

const QUESTION = 'Which Quillfeather release fixed the export bug?';

describe('traces from the real process', () => {
  let llm: FakeOpenAI;
  let slack: FakeSlackApi;
  let search: FakeSearchServer;
  let receiver: OtlpReceiver;
  let scout: ScoutProcess;

  beforeAll(async () => {
    llm = await startFakeOpenAI();
    slack = await startFakeSlackApi();
    search = await startFakeSearchServer();
    receiver = await startOtlpReceiver();
    scout = await spawnScout({
      OPENAI_API_KEY: 'sk-otel-process-key-0001',
      OPENAI_BASE_URL: llm.baseUrl,
      AGENT_FUNCTION_CALL_MODEL: 'openai/test-model',
      SLACK_BOT_TOKEN: 'xoxb-otel-process-token',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.url,
      ...search.env('tavily'),
      DEFAULT_MODE: 'agent',
      AGENT_READ_RESULTS: '0',
      STORE_URL: 'memory://',
      LOG_LEVEL: 'debug',
      SHUTDOWN_GRACE_MS: '5000',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'scout-e2e',
    });
  }, 60_000);

  afterAll(async () => {
    scout?.kill();
    await llm?.close();
    await slack?.close();
    await search?.close();
    await receiver?.close();
  });

  it('an agent turn in a Slack DM arrives as one trace, flushed at SIGTERM, its id on the log lines', async () => {
    llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'quillfeather export bug' } }]));
    llm.fallback = textReply('Release 2.3 fixed it [1].');
    const ts = '1767377201.000001';
    expect((await scout.dm(QUESTION, ts)).status).toBe(200);
    await slack.waitFor(
      () => JSON.stringify(slack.messagesIn(DM_CHANNEL, ts)).includes('2.3'),
      20_000,
      'the answer',
    );

    // The batch processor exports every 5 s by default: SIGTERM must flush what is still queued.
    scout.child.kill('SIGTERM');
    expect(await scout.exited).toBe(0);

    const spans = receiver.spans();
    const roots = spans.filter((s) => s.parentSpanId === '');
    expect(roots.map((r) => r.name)).toEqual(['invoke_agent Scout']);
    const [turn] = roots;
    expect(turn?.resource['service.name']).toBe('scout-e2e');
    expect(turn?.attributes).toMatchObject({
      'scout.surface': 'slack',
      'scout.mode': 'agent',
      'scout.outcome': 'ok',
    });
    const names = spans.filter((s) => s.traceId === turn?.traceId).map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining(['chat test-model', 'execute_tool web_search', 'search tavily', 'deliver']),
    );
    const sent = Buffer.concat(receiver.requests.map((r) => r.body)).toString('latin1');
    expect(sent).not.toContain('Quillfeather');
    expect(sent).not.toContain('sk-otel-process-key-0001');

    // Log lines written during the turn carry its trace id; the start-up lines do not.
    const lines = scout
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const traced = lines.filter((l) => l.trace_id !== undefined);
    expect(traced.length).toBeGreaterThan(0);
    expect(new Set(traced.map((l) => l.trace_id))).toEqual(new Set([turn?.traceId]));
    expect(lines.find((l) => l.msg === 'surface started')?.trace_id).toBeUndefined();
  }, 60_000);

  /** `scout --once` in the terminal, in chat mode, its traces sent to `receiver`. */
  const runOnceTraced = (receiver: OtlpReceiver) =>
    runMain(['--once', 'Say something about Quillfeather'], {
      OPENAI_API_KEY: 'sk-otel-process-key-0001',
      OPENAI_BASE_URL: llm.baseUrl,
      AGENT_FUNCTION_CALL_MODEL: 'openai/test-model',
      DEFAULT_MODE: 'chat',
      STORE_URL: 'memory://',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    });

  it('--once in the terminal sends its turn before exiting', async () => {
    const once = await startOtlpReceiver();
    try {
      llm.fallback = textReply('Answered once.');
      const result = await runOnceTraced(once);
      expect(result.stdout).toContain('Answered once.');
      expect(result.code).toBe(0);
      const roots = once.spans().filter((s) => s.parentSpanId === '');
      expect(roots).toHaveLength(1);
      expect(roots[0]?.attributes).toMatchObject({ 'scout.surface': 'console', 'scout.mode': 'chat' });
      expect(once.spans().some((s) => s.name === 'chat test-model')).toBe(true);
    } finally {
      await once.close();
    }
  }, 60_000);

  it('--once whose turn fails still exits 1 after sending its trace (the export thread holds the exit until it has closed)', async () => {
    const once = await startOtlpReceiver();
    try {
      llm.enqueue({ status: 400, body: openAIErrorBody('the model does not exist') });
      const result = await runOnceTraced(once);
      // Without its trace sent, or with the process ending inside the exporter's shutdown (the exit
      // code lost: 0), this fails.
      expect(result.code).toBe(1);
      const roots = once.spans().filter((s) => s.parentSpanId === '');
      expect(roots).toHaveLength(1);
      expect(roots[0]?.attributes).toMatchObject({ 'scout.outcome': 'error' });
    } finally {
      await once.close();
    }
  }, 60_000);
});
