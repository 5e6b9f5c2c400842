/**
 * `.env.example` is read three ways: Node's `--env-file` / `process.loadEnvFile` (main.ts reads `.env`),
 * `docker run --env-file`, and people copying lines. Docker takes every non-comment line as
 * KEY=VALUE verbatim — a comment after a value becomes part of it — so comments live on their own lines.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/env.js';
import { repoRoot } from '../helpers/shared-folders.js';

const example = readFileSync(path.join(repoRoot, '.env.example'), 'utf8');

/** What `docker run --env-file` does: `#` lines and blank lines skipped, the rest KEY=VALUE verbatim. */
function parseDockerEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const eq = line.indexOf('=');
    env[eq === -1 ? line : line.slice(0, eq)] = eq === -1 ? '' : line.slice(eq + 1);
  }
  return env;
}

/** Every `# KEY=value` line uncommented: the copy a user gets by enabling every documented default. */
function uncommentAll(text: string): string {
  return text.replace(/^#\s*([A-Z][A-Z0-9_]*=)/gm, '$1');
}

describe('.env.example', () => {
  it('has no comment after a value (Docker would keep it as part of the value)', () => {
    const withTrailing = uncommentAll(example)
      .split('\n')
      .filter((line) => /^[A-Z][A-Z0-9_]*=.*\s#/.test(line));
    expect(withTrailing).toEqual([]);
  });

  it('read the Docker way, as is and with every default uncommented, passes the configuration check', () => {
    const keys = { DEEPSEEK_API_KEY: 'sk-example-deepseek', OPENAI_API_KEY: 'sk-example-openai' };
    for (const text of [example, uncommentAll(example)]) {
      const env = { ...parseDockerEnvFile(text), ...keys };
      expect(checkConfig(env).problems).toEqual([]);
    }
  });

  it('Node reads the same values as Docker', () => {
    for (const text of [example, uncommentAll(example)]) {
      expect(parseEnv(text)).toEqual(parseDockerEnvFile(text));
    }
  });
});
