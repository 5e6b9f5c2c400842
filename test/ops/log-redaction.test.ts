/**
 * The logger's safety net: errors from SDKs quote URLs (with credentials or `?key=`) and provider
 * bodies verbatim, and pino serialises an error's cause chain. Whatever path a secret takes into an
 * error — message, stack, cause, extra fields — it is gone from the log line.
 */
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/errors.js';
import { networkFailure } from '../../src/llm/http-failure.js';
import { createLogger, secretsOf } from '../../src/logger.js';

const DISCORD_TOKEN = 'MTIzNDU2Nzg5.discord-token-value.abcdefgh';
const URL_PASSWORD = 'pr0xy-passw0rd';
const GEMINI_KEY = 'AIzaSyFAKEFAKEFAKEFAKEFAKE0123';

function capture(secrets: string[]) {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (l: string) => lines.push(l) },
    secrets,
  });
  return { logger, text: () => lines.join('\n') };
}

describe('log redaction', () => {
  it('scrubs URL credentials, key query parameters and configured tokens from errors and their causes', () => {
    const env = {
      DISCORD_TOKEN,
      OPENAI_COMPATIBLE_BASE_URL: `https://scout:${URL_PASSWORD}@llm.internal/v1`,
      DEFAULT_MODE: 'chat',
    };
    const { logger, text } = capture(secretsOf(env));
    const cause = new TypeError(
      `Request cannot be constructed from a URL that includes credentials: https://scout:${URL_PASSWORD}@llm.internal/v1/chat/completions?key=${GEMINI_KEY}`,
    );
    const err = new LlmError('network', 'openai-compatible/m: network error', {}, { cause });
    logger.error({ err }, 'turn failed');
    const gateway = Object.assign(new Error(`gateway closed for ${DISCORD_TOKEN}`), { token: DISCORD_TOKEN });
    logger.warn({ err: gateway }, `shard said ${DISCORD_TOKEN}`);

    const out = text();
    expect(out).toContain('turn failed');
    expect(out).toContain('llm.internal');
    for (const secret of [DISCORD_TOKEN, URL_PASSWORD, GEMINI_KEY]) expect(out).not.toContain(secret);
  });

  it('network failures keep the host but not the credentials in the LlmError message', () => {
    const err = networkFailure(
      new Error('fetch failed', {
        cause: new Error(
          `connect ECONNREFUSED https://scout:${URL_PASSWORD}@llm.internal/v1?api_key=abc123456789`,
        ),
      }),
      { provider: 'openai-compatible', model: 'm' },
    );
    expect(err.message).toContain('llm.internal');
    expect(err.message).not.toContain(URL_PASSWORD);
    expect(err.message).not.toContain('abc123456789');
  });
});
