import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { ConfigError } from '../../src/errors.js';

const base = { DEEPSEEK_API_KEY: 'sk-deepseek-secret' };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(base);
    expect(config.toolModel).toEqual({
      provider: 'deepseek',
      model: 'deepseek-chat',
      temperature: 0.7,
    });
    expect(config.answerModel).toBeNull();
    expect(config.env.DEFAULT_MODE).toBe('chat');
    expect(config.env.AGENT_MAX_ITERATIONS).toBe(5);
    expect(config.env.AGENT_MAX_EXECUTION_TIME).toBe(60);
    expect(config.env.SESSION_TTL).toBe(24 * 3_600_000);
    expect(config.env.STORE_URL).toBe('sqlite://data/scout.sqlite');
    expect(config.surfaces).toEqual({ slack: false, discord: false, web: false, console: true });
  });

  it('says exactly which variable to set when no LLM key is configured', () => {
    const lines = problems({});
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/DEEPSEEK_API_KEY/);
    expect(lines[0]).toMatch(/OPENAI_API_KEY/);
  });

  it('rejects out-of-range agent limits naming the variable', () => {
    expect(problems({ ...base, AGENT_MAX_ITERATIONS: '11' })).toEqual([
      expect.stringMatching(/^AGENT_MAX_ITERATIONS: must be between 1 and 10/),
    ]);
    expect(problems({ ...base, AGENT_MAX_EXECUTION_TIME: '5' })[0]).toMatch(
      /^AGENT_MAX_EXECUTION_TIME: .*10 and 300/,
    );
  });

  it('stops on an invalid AGENT_FUNCTION_CALL_MODEL with a message naming it', () => {
    expect(problems({ ...base, AGENT_FUNCTION_CALL_MODEL: '{not json' })[0]).toMatch(
      /^AGENT_FUNCTION_CALL_MODEL: invalid JSON/,
    );
    expect(problems({ ...base, AGENT_FUNCTION_CALL_MODEL: 'nosuch/model' })[0]).toMatch(
      /^AGENT_FUNCTION_CALL_MODEL: unknown provider \(use one of/,
    );
    expect(problems({ ...base, AGENT_ANSWER_MODEL: 'deepseek/deepseek-coder-9000' })[0]).toMatch(
      /^AGENT_ANSWER_MODEL: unknown DeepSeek model/,
    );
  });

  it('parses both model syntaxes and validates parameters', () => {
    const config = loadConfig({
      ...base,
      ANTHROPIC_API_KEY: 'sk-ant',
      AGENT_FUNCTION_CALL_MODEL: '{"provider":"deepseek","model":"deepseek-reasoner","temperature":0.3}',
      AGENT_ANSWER_MODEL: 'anthropic/claude-sonnet-4-5',
    });
    expect(config.toolModel).toMatchObject({
      provider: 'deepseek',
      model: 'deepseek-reasoner',
      temperature: 0.3,
    });
    expect(config.answerModel).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(
      problems({ ...base, AGENT_FUNCTION_CALL_MODEL: '{"provider":"deepseek","temperature":2}' })[0],
    ).toMatch(/temperature must be a number, at least 0 and below 2/);
    expect(
      problems({ ...base, AGENT_FUNCTION_CALL_MODEL: '{"provider":"deepseek","max_tokens":-5}' })[0],
    ).toMatch(/max_tokens must be a positive whole number/);
  });

  it('requires the key of the provider a model names', () => {
    expect(problems({ ...base, AGENT_ANSWER_MODEL: 'openai/gpt-4.1' })).toEqual([
      'OPENAI_API_KEY: required by AGENT_ANSWER_MODEL (openai) but not set',
    ]);
  });

  it('never echoes a secret in its problems', () => {
    const lines = problems({ ...base, SLACK_APP_TOKEN: 'xapp-very-secret', LOG_LEVEL: 'loud' });
    expect(lines.join('\n')).not.toContain('xapp-very-secret');
    expect(lines.some((l) => l.startsWith('SLACK_BOT_TOKEN:'))).toBe(true);
    expect(lines.some((l) => l.startsWith('LOG_LEVEL:'))).toBe(true);
  });

  it('rejects a bot token in SLACK_APP_TOKEN without echoing it', () => {
    const lines = problems({ ...base, SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xoxb-pasted-by-mistake' });
    expect(lines).toEqual([
      'SLACK_APP_TOKEN: must be an app-level token (xapp-…) with the connections:write scope',
    ]);
  });

  it('picks surfaces from the tokens present', () => {
    expect(loadConfig({ ...base, DISCORD_TOKEN: 'd' }).surfaces).toEqual({
      slack: false,
      discord: true,
      web: false,
      console: false,
    });
    expect(loadConfig({ ...base, WEB_PORT: '8080' }).surfaces).toEqual({
      slack: false,
      discord: false,
      web: true,
      console: false,
    });
    expect(
      loadConfig({ ...base, SLACK_BOT_TOKEN: 'xoxb', SLACK_SIGNING_SECRET: 's', DISCORD_TOKEN: 'd' })
        .surfaces,
    ).toEqual({ slack: true, discord: true, web: false, console: false });
  });
});

describe('AGENT_TOOLS names', () => {
  it('the built-in names --check accepts are the tools Scout ships', async () => {
    const { BUILT_IN_TOOL_NAMES } = await import('../../src/config/env.js');
    const { WEB_SEARCH_TOOL_NAME } = await import('../../src/tools/web-search-tool.js');
    const { FETCH_URL_TOOL_NAME } = await import('../../src/tools/fetch-url-tool.js');
    const { CURRENT_CONTEXT_TOOL_NAME } = await import('../../src/tools/current-context-tool.js');
    expect([...BUILT_IN_TOOL_NAMES].sort()).toEqual(
      [WEB_SEARCH_TOOL_NAME, FETCH_URL_TOOL_NAME, CURRENT_CONTEXT_TOOL_NAME].sort(),
    );
  });
});
