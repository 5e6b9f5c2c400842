/**
 * Config errors name the variable and the expected form, never the value: a key pasted into the
 * wrong variable must not end up in a terminal, a log or a CI transcript.
 */
import { describe, expect, it } from 'vitest';
import { EnvSchema, loadConfig } from '../../src/config/env.js';
import { ConfigError } from '../../src/errors.js';

const SECRET = 'sk-LEAKED0123456789abcdef';
/** Values a person pastes by mistake: the key alone, with a space, quoted, as JSON, with a newline. */
const PASTES = [
  SECRET,
  `openai/gpt-4o ${SECRET}`,
  `"${SECRET}"`,
  `{"provider":"${SECRET}","model":"${SECRET}","temperature":"${SECRET}"}`,
  `{"provider":"openai","model":"gpt-4o","max_tokens":"${SECRET}","top_p":"${SECRET}"}`,
  `deepseek/${SECRET}`,
  `${SECRET}/model`,
  `openai/${SECRET}\nmore`,
];

function problemsFor(env: Record<string, string>): string {
  try {
    loadConfig({ OPENAI_API_KEY: 'sk-test-ok', LOG_LEVEL: 'silent', ...env });
    return '';
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
}

describe('config errors never contain a value', () => {
  const variables = Object.keys(EnvSchema.shape);
  for (const variable of variables) {
    it(`${variable}`, () => {
      for (const value of PASTES) {
        const message = problemsFor({ [variable]: value });
        expect(message, `${variable}=${JSON.stringify(value)}`).not.toContain('LEAKED');
      }
    });
  }

  it('refuses a model name with a key pasted after it, naming the variable and the form', () => {
    const message = problemsFor({ AGENT_FUNCTION_CALL_MODEL: `openai/gpt-4o ${SECRET}` });
    expect(message).toMatch(/AGENT_FUNCTION_CALL_MODEL: model name must be letters, digits/);
    expect(message).not.toContain('LEAKED');
    expect(problemsFor({ AGENT_ANSWER_MODEL: 'openai/"gpt-4o"' })).toMatch(/AGENT_ANSWER_MODEL: model name/);
  });

  it('accepts the model names people really use', () => {
    for (const spec of [
      'openai/gpt-4.1-mini',
      'anthropic/claude-sonnet-4-5@20250929',
      'openai-compatible/Qwen/Qwen2.5-7B-Instruct',
      'gemini/gemini-2.5-flash',
    ]) {
      const env: Record<string, string> = { AGENT_FUNCTION_CALL_MODEL: spec };
      if (spec.startsWith('anthropic')) env['ANTHROPIC_API_KEY'] = 'sk-ant-test';
      if (spec.startsWith('gemini')) env['GEMINI_API_KEY'] = 'g-test';
      if (spec.startsWith('openai-compatible')) env['OPENAI_COMPATIBLE_BASE_URL'] = 'http://127.0.0.1:1/v1';
      expect(problemsFor(env), spec).toBe('');
    }
  });
});
