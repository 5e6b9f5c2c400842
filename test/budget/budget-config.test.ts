/** Issue 29, bad input: absurd limits stop start-up with a line naming the variable, never its value. */
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/env.js';

const base = { OPENAI_API_KEY: 'sk-test' };

describe('limit variables', () => {
  it.each([
    ['BUDGET_USER_DAILY_USD', '-5', 'must be between 0.01 and 100000'],
    ['BUDGET_CHANNEL_DAILY_USD', 'NaN', 'must be a number'],
    ['BUDGET_USER_DAILY_USD', '1e400', 'must be a number'],
    ['BUDGET_CHANNEL_DAILY_USD', '5000000', 'must be between 0.01 and 100000'],
    ['BUDGET_USER_DAILY_TOKENS', '0', 'must be between 1000 and 10000000000'],
    ['BUDGET_CHANNEL_DAILY_TOKENS', '1e11', 'must be between 1000 and 10000000000'],
    ['BUDGET_USER_DAILY_TOKENS', '2500.5', 'must be a whole number'],
    ['MAX_TURNS_PER_USER', '-1', 'must be between 0 and 100'],
    ['MAX_TURNS_PER_USER', 'lots', 'must be a number'],
    ['BUDGET_FAIL_MODE', 'sometimes', 'must be one of open, closed'],
  ])('%s=%s is refused: %s', (variable, value, message) => {
    const { config, problems } = checkConfig({ ...base, [variable]: value });
    expect(config).toBeUndefined();
    expect(problems).toEqual([`${variable}: ${message}`]);
    expect(problems.join('\n')).not.toContain(value === '0' ? '=0' : value);
  });

  it('unset or empty means no limit; the defaults are 2 answers at once, admins exempt, fail open', () => {
    const { config } = checkConfig({ ...base, BUDGET_USER_DAILY_USD: '', BUDGET_CHANNEL_DAILY_TOKENS: ' ' });
    expect(config?.env).toMatchObject({
      BUDGET_USER_DAILY_USD: undefined,
      BUDGET_CHANNEL_DAILY_TOKENS: undefined,
      MAX_TURNS_PER_USER: 2,
      BUDGET_EXEMPT_ADMINS: true,
      BUDGET_FAIL_MODE: 'open',
    });
    const set = checkConfig({ ...base, BUDGET_USER_DAILY_USD: '2.5', BUDGET_USER_DAILY_TOKENS: '200000' });
    expect(set.config?.env).toMatchObject({ BUDGET_USER_DAILY_USD: 2.5, BUDGET_USER_DAILY_TOKENS: 200_000 });
  });
});
