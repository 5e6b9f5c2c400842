/** The one access decision: BLOCKED_USERS wins, ALLOWED_USERS admits, ALLOWED_ROLES gates Discord. */
import { describe, expect, it } from 'vitest';
import { isUserAllowed } from '../../src/core/allowed-channels.js';
import { checkConfig } from '../../src/config/env.js';

const withEnv = (env: Record<string, string>) => {
  const { config, problems } = checkConfig({ OPENAI_API_KEY: 'sk-test', ...env });
  if (!config) throw new Error(problems.join('; '));
  return config;
};

describe('access lists', () => {
  it('everyone is served when no list is set', () => {
    expect(isUserAllowed(withEnv({}), { userId: 'U1' })).toBe(true);
    expect(isUserAllowed(withEnv({}), { userId: '42', direct: true })).toBe(true);
  });

  it('BLOCKED_USERS wins over ALLOWED_USERS and roles', () => {
    const c = withEnv({ ALLOWED_USERS: 'U1', BLOCKED_USERS: 'U1, U2', ALLOWED_ROLES: 'R1' });
    expect(isUserAllowed(c, { userId: 'U1' })).toBe(false);
    expect(isUserAllowed(c, { userId: 'U2', roles: ['R1'] })).toBe(false);
  });

  it('ALLOWED_USERS admits only its users', () => {
    const c = withEnv({ ALLOWED_USERS: 'U1,U2' });
    expect(isUserAllowed(c, { userId: 'U2' })).toBe(true);
    expect(isUserAllowed(c, { userId: 'U3' })).toBe(false);
  });

  it('ALLOWED_ROLES: a member needs a role, a DM needs ALLOWED_USERS, Slack (no roles) is not gated', () => {
    const c = withEnv({ ALLOWED_ROLES: 'R1', ALLOWED_USERS: 'D1' });
    expect(isUserAllowed(c, { userId: 'M1', roles: ['R0', 'R1'] })).toBe(true);
    expect(isUserAllowed(c, { userId: 'M2', roles: ['R0'] })).toBe(false);
    expect(isUserAllowed(c, { userId: 'M2', direct: true })).toBe(false);
    expect(isUserAllowed(c, { userId: 'D1', direct: true })).toBe(true);
    expect(isUserAllowed(withEnv({ ALLOWED_ROLES: 'R1' }), { userId: 'U9' })).toBe(true);
  });
});
