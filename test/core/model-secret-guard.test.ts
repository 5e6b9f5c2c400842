/**
 * `/model tool openai/<an API key pasted by mistake>`: refused with a message that says what is
 * wrong without showing the value again, and nothing is saved. Real model ids — short, long,
 * fine-tuned, hub paths, ARNs — are still accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { RecordingSink, type TestScout, startTestScout, testMessage } from '../helpers/scout-harness.js';

let h: TestScout;
beforeAll(async () => {
  h = await startTestScout({ env: { ANTHROPIC_API_KEY: 'sk-ant-test-harness-key' } });
});
afterAll(() => h.close());

// Shaped like real credentials (random characters), never real ones.
const SECRETS = [
  'sk-proj-Zx81QwErTy7UiOpAs2DfGhJkL3ZxCvBnM4QwErTy5UiOpAsDf6GhJkL9ZxCvBnM0',
  'sk-Q8wE7rT6yU5iO4pA3sD2fG1hJ0kLzXcVbNmQwErTyUiOp',
  'sk-ant-api03-kR2_dT9-xLq4ZmWv8NbYc6HjPf3Gs1Ae5Uo7Ii0Kl-QwErTyUiOpAsDfGhJk',
  `xoxb-${'1234567890'}12-4455667788990-Ab12Cd34Ef56Gh78Ij90Kl12`,
  'xapp-1-A0123456789-1234567890123-0a1b2c3d4e5f60718293a4b5c6d7e8f9',
  'ghp_Q8wE7rT6yU5iO4pA3sD2fG1hJ0kLzXcVbNm',
  'AKIAIOSFODNN7EXAMPLE',
  'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY',
  'gsk_Zx81QwErTy7UiOpAs2DfGhJkL3ZxCvBnM4QwErTy5UiOpAsD',
  // No known prefix, but a long random token (a password manager's output, a bearer token).
  'Zx81QwErTy7UiOpAs2DfGhJkL3ZxCvBnM4Qw',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
];

async function runModel(args: string) {
  const sink = new RecordingSink();
  await h.scout.handleMessage(testMessage(`/model ${args}`, { channelId: 'test:SECRETS' }), sink);
  return sink.replies.join('\n');
}

describe('/model refuses model ids that look like secrets', () => {
  it.each(SECRETS)('refuses a pasted secret as the model and does not echo it (%#)', async (secret) => {
    for (const args of [`tool openai/${secret}`, `answer anthropic/${secret}`, `tool ${secret}`]) {
      const shown = await runModel(args);
      expect(shown).toMatch(/looks like an API key or token/);
      expect(shown).not.toContain(secret);
      // Not even a recognisable piece of it.
      expect(shown).not.toContain(secret.slice(-12));
    }
    expect(await runModel('')).not.toContain(secret.slice(-12));
  });

  it('refuses a secret pasted as an option, without echoing it', async () => {
    const secret = SECRETS[0]!;
    const shown = await runModel(`tool openai/gpt-4.1-mini ${secret}`);
    expect(shown).toMatch(/looks like an API key or token/);
    expect(shown).not.toContain(secret.slice(-12));
  });

  it('still accepts real model ids', async () => {
    for (const id of [
      'openai/gpt-4.1-mini',
      'openai/ft:gpt-4o-mini-2024-07-18:my-org:support-bot:9aBcDeFg',
      'openai/meta-llama/Llama-3.3-70B-Instruct-Turbo',
      'openai/accounts/fireworks/models/llama-v3p1-405b-instruct',
      'openai/qwen2.5-coder:32b-instruct-q4_K_M',
      'openai/arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20241022-v2:0',
      'openai/sha256:4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b',
      'anthropic/claude-sonnet-4-5-20250929',
    ]) {
      const shown = await runModel(`tool ${id}`);
      expect(shown, id).toMatch(/model set to/);
    }
  });

  it('a model variable holding a secret stops start-up naming the variable, not the value', () => {
    const secret = SECRETS[1]!;
    let message = '';
    try {
      loadConfig({ OPENAI_API_KEY: 'sk-test', AGENT_FUNCTION_CALL_MODEL: `openai/${secret}` });
    } catch (err) {
      message = String(err);
    }
    expect(message).toMatch(/AGENT_FUNCTION_CALL_MODEL/);
    expect(message).toMatch(/looks like an API key or token/);
    expect(message).not.toContain(secret.slice(-12));
  });
});
