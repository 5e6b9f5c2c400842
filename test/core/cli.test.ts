/**
 * The real entry point as a user runs it (`npm start -- …` runs the same main.ts compiled), against a fake
 * LLM server: --once, --check, the missing-key message, and history surviving a restart on SQLite.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI, textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { startFakeSearchServer } from '../helpers/fake-search-server.js';
import { runMain } from '../helpers/run-main.js';

describe('the scout command', { timeout: 60_000 }, () => {
  let llm: FakeOpenAI;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    llm = await startFakeOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'scout-cli-'));
    env = {
      OPENAI_API_KEY: 'sk-cli-test',
      OPENAI_BASE_URL: llm.baseUrl,
      AGENT_FUNCTION_CALL_MODEL: 'openai/cli-model',
      STORE_URL: `sqlite://${join(dir, 'scout.sqlite')}`,
    };
  });
  afterAll(async () => {
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says exactly which variable to set when no LLM key is configured', async () => {
    const result = await runMain(['--once', 'hi'], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No LLM configured: set one of DEEPSEEK_API_KEY, OPENAI_API_KEY');
    expect(result.stderr).toContain('.env.example');
  });

  it('--check validates and exits non-zero with one line per problem', async () => {
    const ok = await runMain(['--check'], env);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('Configuration OK: model openai/cli-model');
    const bad = await runMain(['--check'], {
      ...env,
      AGENT_MAX_ITERATIONS: '11',
      TEMPERATURE_TYPO: 'x',
      DEFAULT_MODE: 'turbo',
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('AGENT_MAX_ITERATIONS: must be between 1 and 10');
    expect(bad.stderr).toContain('DEFAULT_MODE:');
    expect(bad.stderr).not.toContain('sk-cli-test');
  });

  it('--check reports four different mistakes as four lines in one run, each naming the variable', async () => {
    const bad = await runMain(['--check'], {
      ...env,
      // A schema error must not hide the checks that come after it.
      DEFAULT_MODE: 'turbo',
      AGENT_FUNCTION_CALL_MODEL: 'anthropic/claude-sonnet-4-5',
      ANTHROPIC_API_KEY: 'sk-ant-secret-value-0001',
      DEFAULT_TEMPERATURE: '1.5',
      SEARCH_PROVIDER: 'tavily',
      AGENT_TOOLS: 'bogus_tool',
    });
    expect(bad.code).toBe(1);
    const lines = bad.stderr.split('\n').filter((line) => line.startsWith('  • '));
    expect(lines).toEqual([
      '  • DEFAULT_MODE: must be one of chat, agent, plan',
      '  • DEFAULT_TEMPERATURE: must be between 0 and 1 when an Anthropic model is used (Anthropic’s limit)',
      '  • TAVILY_API_KEY: required by SEARCH_PROVIDER=tavily but not set',
      expect.stringMatching(
        /^ {2}• AGENT_TOOLS: entry 1 is not a known tool \(built-in tools: web_search, fetch_url, current_context/,
      ),
    ]);
    expect(bad.stderr + bad.stdout).not.toContain('sk-ant-secret-value-0001');
  });

  it('--once answers, and a new process continues the conversation from the SQLite file', async () => {
    llm.enqueue(textReply('Nice to meet you, Ada.'));
    const first = await runMain(['--once', 'My name is Ada.', '--conversation', 'cli-1'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Nice to meet you, Ada.');

    llm.enqueue(textReply('Your name is Ada.'));
    const second = await runMain(['--once', 'What is my name?', '--conversation', 'cli-1'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Your name is Ada.');
    const body = llm.requests.at(-1)?.body as { messages: Array<{ content: string }> } | undefined;
    const sent = (body?.messages ?? []).map((m) => m.content);
    expect(sent).toContain('My name is Ada.');
    expect(sent).toContain('Nice to meet you, Ada.');
  });

  it('--once exits non-zero when the turn fails', async () => {
    llm.enqueue({ status: 401, body: { error: { message: 'invalid key' } } });
    const result = await runMain(['--once', 'hello'], env);
    expect(result.code).toBe(1);
    // The error goes to stderr, so a script reading stdout never takes it for an answer.
    expect(result.stderr).toContain('rejected Scout’s credentials');
    expect(result.stdout).not.toContain('rejected Scout’s credentials');
    expect(result.stdout + result.stderr).not.toContain('sk-cli-test');
  });

  it('--once exits 1 when BUDGET_USER_DAILY_USD is spent, with the refusal on stderr', async () => {
    const limited = {
      ...env,
      STORE_URL: `sqlite://${join(dir, 'budget.sqlite')}`,
      PRICE_TABLE: JSON.stringify({ 'openai/cli-model': { input: 1000, output: 1000 } }),
      BUDGET_USER_DAILY_USD: '0.01',
    };
    llm.enqueue(textReply('The first answer.', { usage: { inputTokens: 100, outputTokens: 100 } }));
    const first = await runMain(['--once', 'first question'], limited);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('The first answer.');

    // That answer cost $0.20 of a $0.01 day: the next is refused, and a cron job must see it failed.
    const calls = llm.requests.length;
    const second = await runMain(['--once', 'second question'], limited);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('daily spending limit');
    expect(second.stdout).toBe('');
    expect(llm.requests).toHaveLength(calls);
  });

  it('--once names the endpoint and the cause when the LLM server cannot be reached, on stderr', async () => {
    // Port 1 (tcpmux): nothing listens there and no test can take it, as when Ollama is not running
    // (a port found free and closed could be taken by another test's server while Scout starts).
    const closed = 1;
    const result = await runMain(['--once', 'hello'], {
      ...env,
      OPENAI_BASE_URL: `http://127.0.0.1:${closed}/v1`,
      LLM_MAX_RETRIES: '0',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Could not connect to http://127.0.0.1:${closed}/v1 — connection refused; is the server running?`,
    );
    expect(result.stderr).not.toContain('overloaded');
    expect(result.stdout).not.toContain('Could not connect');
  });

  it('--check --probe calls each configured model and search provider once and reports each', async () => {
    const search = await startFakeSearchServer();
    try {
      llm.enqueue(textReply('OK'));
      const ok = await runMain(['--check', '--probe'], {
        ...env,
        STORE_URL: 'memory://',
        ...search.env('tavily'),
      });
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain('✓ AGENT_FUNCTION_CALL_MODEL openai/cli-model: reachable, key accepted');
      expect(ok.stdout).toContain('✓ SEARCH_PROVIDER tavily: reachable, key accepted');

      llm.enqueue({ status: 401, body: { error: { message: 'invalid key sk-cli-test' } } });
      const bad = await runMain(['--check', '--probe'], {
        ...env,
        STORE_URL: 'memory://',
        ...search.env('tavily'),
        TAVILY_API_KEY: 'tvly-wrong-key-0001',
      });
      expect(bad.code).toBe(1);
      expect(bad.stdout).toContain('✗ AGENT_FUNCTION_CALL_MODEL openai/cli-model: key rejected');
      expect(bad.stdout).toContain('OPENAI_API_KEY');
      expect(bad.stdout).toMatch(/✗ SEARCH_PROVIDER tavily: .*401/);
      expect(bad.stdout + bad.stderr).not.toContain('sk-cli-test');
      expect(bad.stdout + bad.stderr).not.toContain('tvly-wrong-key-0001');
    } finally {
      await search.close();
    }
  });

  it('--once in agent mode prints the steps, the cited answer, the References and the statistics', async () => {
    const search = await startFakeSearchServer();
    try {
      search.script('node 24 release date', [
        {
          title: 'Node.js 24 released',
          url: 'https://nodejs.org/en/blog/release/v24.0.0',
          snippet: 'Node 24 is out.',
        },
      ]);
      llm.enqueue(
        toolCallReply([{ name: 'web_search', arguments: { query: 'node 24 release date' } }]),
        textReply('No more searching needed.'),
        textReply('Node.js 24 was released in May 2025 [1].'),
      );
      const result = await runMain(['--once', 'When was Node 24 released?'], {
        ...env,
        DEFAULT_MODE: 'agent',
        STORE_URL: 'memory://',
        AGENT_MIN_RESULT_CHARS: '100000',
        ...search.env('tavily'),
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('node 24 release date');
      expect(result.stdout).toContain('Node.js 24 was released in May 2025 [1]');
      expect(result.stdout).toMatch(
        /References\n1\. Node\.js 24 released <https:\/\/nodejs\.org\/en\/blog\/release\/v24\.0\.0>/,
      );
      expect(result.stdout).toMatch(/tok/);
      expect(search.requests).toHaveLength(1);
    } finally {
      await search.close();
    }
  });
});
