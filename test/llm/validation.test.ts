/** Model parameters are validated before any call, with errors naming what is wrong. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { ConfigError } from '../../src/errors.js';
import {
  createLlmClient,
  createLlmClientFromConfig,
  endpointsFromEnv,
} from '../../src/llm/create-llm-client.js';
import { parseModelSpec } from '../../src/llm/model-config.js';
import { model } from './client-helpers.js';

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('model validation', () => {
  it('rejects temperature 2.0, negative max_tokens, bad top_p and unknown DeepSeek variants', () => {
    expect(
      configError(() => createLlmClient(model('openai', 'gpt-4.1-mini', { temperature: 2 }))).message,
    ).toMatch(/temperature/);
    expect(
      configError(() => createLlmClient(model('openai', 'gpt-4.1-mini', { maxTokens: -5 }))).message,
    ).toMatch(/max_tokens/);
    expect(configError(() => createLlmClient(model('openai', 'gpt-4.1-mini', { topP: 0 }))).message).toMatch(
      /top_p/,
    );
    expect(
      configError(() => createLlmClient(model('anthropic', 'claude-test', { temperature: 1.5 }))).message,
    ).toMatch(/Anthropic/);
    expect(configError(() => createLlmClient(model('deepseek', 'deepseek-r9'))).message).toMatch(
      /unknown DeepSeek model \(see DEEPSEEK_MODEL_VARIANT/,
    );
  });

  it('accepts the limits that are allowed', () => {
    expect(createLlmClient(model('openai', 'gpt-4.1-mini', { temperature: 1.99, topP: 1 })).label).toBe(
      'openai/gpt-4.1-mini',
    );
    expect(createLlmClient(model('anthropic', 'claude-test', { temperature: 1 })).config.temperature).toBe(1);
    expect(createLlmClient(model('deepseek', 'deepseek-reasoner')).label).toBe('deepseek/deepseek-reasoner');
  });

  it('needs a base URL for openai-compatible', () => {
    expect(configError(() => createLlmClient(model('openai-compatible', 'llama'))).message).toMatch(
      /OPENAI_COMPATIBLE_BASE_URL/,
    );
  });

  it('fails a call without a key with an auth error naming the variable', async () => {
    const client = createLlmClient(model('gemini', 'gemini-2.5-flash'));
    await expect(client.complete({ messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      code: 'auth',
      message: expect.stringContaining('GEMINI_API_KEY'),
    });
  });

  it('parses provider/model and JSON specs, naming the source in errors', () => {
    // No max_tokens unless set: the provider's own limit applies.
    expect(parseModelSpec('deepseek/deepseek-reasoner', 'X')).toEqual({
      provider: 'deepseek',
      model: 'deepseek-reasoner',
      temperature: 0.7,
    });
    expect(
      parseModelSpec('{"provider":"anthropic","model":"claude-sonnet-4-5","temperature":0.3}', 'X'),
    ).toMatchObject({ provider: 'anthropic', temperature: 0.3 });
    expect(configError(() => parseModelSpec('{"provider":', 'AGENT_ANSWER_MODEL')).message).toMatch(
      /^AGENT_ANSWER_MODEL: invalid JSON/,
    );
    expect(configError(() => parseModelSpec('mistral/large', 'AGENT_ANSWER_MODEL')).message).toMatch(
      /unknown provider \(use one of/,
    );
    expect(configError(() => parseModelSpec('openai/gpt-4.1 ', 'X', { temperature: 2 })).message).toMatch(
      /temperature/,
    );
  });

  it('makes loadConfig throw a message naming an invalid AGENT_FUNCTION_CALL_MODEL', () => {
    const base = { DEEPSEEK_API_KEY: 'sk-test-key-123456', STORE_URL: 'memory://' };
    expect(
      configError(() => loadConfig({ ...base, AGENT_FUNCTION_CALL_MODEL: 'not json {' })).message,
    ).toContain('AGENT_FUNCTION_CALL_MODEL');
    expect(
      configError(() => loadConfig({ ...base, AGENT_FUNCTION_CALL_MODEL: '{"provider":"nope","model":"x"}' }))
        .message,
    ).toMatch(/AGENT_FUNCTION_CALL_MODEL: unknown provider \(use one of/);
    expect(
      configError(() =>
        loadConfig({
          ...base,
          AGENT_FUNCTION_CALL_MODEL: 'deepseek/deepseek-chat',
          AGENT_ANSWER_MODEL: 'openai/gpt-4.1',
        }),
      ).message,
    ).toContain('OPENAI_API_KEY: required by AGENT_ANSWER_MODEL');
  });

  it('builds a client from the loaded configuration with every base URL configurable', () => {
    const config = loadConfig({
      DEEPSEEK_API_KEY: 'sk-test-key-123456',
      DEEPSEEK_BASE_URL: 'http://127.0.0.1:9/v1',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:8',
      STORE_URL: 'memory://',
    });
    const client = createLlmClientFromConfig(config, config.toolModel);
    expect(client.label).toBe('deepseek/deepseek-chat');
    const endpoints = endpointsFromEnv(config.env);
    expect(endpoints.deepseek).toEqual({ apiKey: 'sk-test-key-123456', baseUrl: 'http://127.0.0.1:9/v1' });
    expect(endpoints.anthropic).toEqual({ baseUrl: 'http://127.0.0.1:8' });
    expect(endpoints.gemini.baseUrl).toContain('generativelanguage.googleapis.com');
  });
});
