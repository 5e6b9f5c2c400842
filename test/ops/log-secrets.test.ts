/**
 * Keys and tokens never reach a log line or a reply: the real process at LOG_LEVEL=debug, with
 * distinctive secrets in its environment, runs an agent turn with a web search and a turn the model
 * provider rejects with 401 (its error body echoing the key, as providers partly do). Everything the
 * process writes, and everything it sent to Slack, is scanned for the secrets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlackApi, startFakeSlackApi } from '../helpers/fake-slack-api.js';
import {
  type FakeOpenAI,
  openAIErrorBody,
  startFakeOpenAI,
  textReply,
  toolCallReply,
} from '../helpers/fake-openai-server.js';
import {
  FAKE_TAVILY_KEY,
  type FakeSearchServer,
  startFakeSearchServer,
} from '../helpers/fake-search-server.js';
import { DM_CHANNEL, SIGNING_SECRET, type ScoutProcess, spawnScout } from './spawn-scout.js';

/** Every secret carries this marker, so even a fragment of one is caught. */
const MARKER = 'S3CR3T';
const OPENAI_KEY = `sk-test-${MARKER}-llm-key-0001`;
const SLACK_TOKEN = `xoxb-${MARKER}-bot-token-0002`;
const SECRETS = [OPENAI_KEY, SLACK_TOKEN, SIGNING_SECRET, FAKE_TAVILY_KEY];

describe('secrets in logs and replies (real process, debug logs)', () => {
  let llm: FakeOpenAI;
  let slack: FakeSlackApi;
  let search: FakeSearchServer;
  let scout: ScoutProcess;

  beforeAll(async () => {
    llm = await startFakeOpenAI();
    slack = await startFakeSlackApi();
    search = await startFakeSearchServer();
    scout = await spawnScout({
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: llm.baseUrl,
      AGENT_FUNCTION_CALL_MODEL: 'openai/test-model',
      LLM_MAX_RETRIES: '0',
      SLACK_BOT_TOKEN: SLACK_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.url,
      ...search.env('tavily'),
      DEFAULT_MODE: 'agent',
      STORE_URL: 'memory://',
      LOG_LEVEL: 'debug',
      SHUTDOWN_GRACE_MS: '5000',
    });
  }, 60_000);

  afterAll(async () => {
    scout?.kill();
    await llm?.close();
    await slack?.close();
    await search?.close();
  });

  it('never writes a key or token, even around an authentication failure', async () => {
    // Turn 1: the agent searches, then answers.
    llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'scout release notes' } }]));
    llm.fallback = textReply('Scout 1.0 shipped [1].');
    const first = '1767377101.000001';
    expect((await scout.dm('What is new in Scout?', first)).status).toBe(200);
    await slack.waitFor(
      () => JSON.stringify(slack.messagesIn(DM_CHANNEL, first)).includes('tok'),
      20_000,
      'turn 1',
    );
    expect(search.requests.length).toBeGreaterThan(0);

    // Turn 2: the provider rejects the key, echoing it back the way careless error bodies do.
    llm.fallback = {
      status: 401,
      body: openAIErrorBody(
        `Incorrect API key provided: ${OPENAI_KEY}`,
        'invalid_request_error',
        'invalid_api_key',
      ),
    };
    const before = llm.requests.length;
    const second = '1767377102.000002';
    expect((await scout.dm('And now?', second)).status).toBe(200);
    await waitFor(() => llm.requests.length > before, 'the rejected model call');
    await slack.waitFor(() => slack.messagesIn(DM_CHANNEL, second).length > 0, 20_000, 'turn 2 reply');

    scout.child.kill('SIGTERM');
    expect(await scout.exited).toBe(0);

    const logs = scout.output();
    // The scan is only meaningful if debug logs were written, including the auth failure.
    expect(logs).toContain('"level":20');
    expect(logs).toContain('authentication failed, HTTP 401');
    // The keys did travel: the fakes saw them.
    expect(String(llm.requests[0]?.headers.authorization)).toContain(OPENAI_KEY);

    // What Scout posted to Slack (the `token` argument is how the Web API authenticates: left out).
    const sentToSlack = JSON.stringify(slack.calls.map(({ args: { token: _token, ...args } }) => args));
    for (const secret of SECRETS) {
      expect(logs, `log contains ${secret}`).not.toContain(secret);
      expect(sentToSlack, `a Slack message contains ${secret}`).not.toContain(secret);
    }
    expect(logs).not.toContain(MARKER);
    expect(sentToSlack).not.toContain(MARKER);
  }, 60_000);
});

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
