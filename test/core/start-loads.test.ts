/**
 * What a start loads (issue 19): `--once` in the terminal loads the core, the OpenAI-compatible
 * client and zod/mini — and none of the packages that are only needed when configured or used:
 * platform SDKs, the Redis/SQLite stores, other providers' SDKs, MCP, image/PDF/HTML readers, the
 * tokenizer, metrics, OpenTelemetry, pino (a silent logger is a no-op), zod classic or the openai
 * SDK's index (only its error module).
 * Every module the process resolves is logged by a loader hook (test/helpers/module-log/).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI, textReply } from '../helpers/fake-openai-server.js';

const root = join(import.meta.dirname, '../..');

/** Packages that must not load for a terminal `--once` with the memory store. */
const NOT_AT_START = [
  '@slack/bolt',
  '@slack/socket-mode',
  '@slack/web-api',
  'discord.js',
  '@keyv/redis',
  '@keyv/sqlite',
  '@anthropic-ai/sdk',
  '@modelcontextprotocol/sdk',
  'sharp',
  'unpdf',
  'htmlparser2',
  'gpt-tokenizer',
  'prom-client',
  'pino',
  'pino-pretty',
  'ajv',
  // HTTP goes over node:http (Node's native parser); undici and its WebAssembly parser load only with
  // Slack Socket Mode (test/slack/http-mode-loads.test.ts).
  'undici',
  // Traces load only with OTEL_EXPORTER_OTLP_ENDPOINT set (issue 29).
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/resources',
  '@opentelemetry/otlp-transformer',
  '@opentelemetry/otlp-exporter-base',
];

function packagesIn(urls: string[]): Set<string> {
  const out = new Set<string>();
  for (const url of urls) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match?.[1]) out.add(match[1]);
  }
  return out;
}

describe('what a start loads', { timeout: 60_000 }, () => {
  let llm: FakeOpenAI;
  let dir: string;
  beforeAll(async () => {
    llm = await startFakeOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'scout-loads-'));
  });
  afterAll(async () => {
    await llm?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('--once loads the core and its client, not what is only needed when configured', async () => {
    llm.enqueue(textReply('Loaded light.'));
    const log = join(dir, 'modules.log');
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          '--import',
          'tsx',
          '--import',
          './test/helpers/module-log/register.mjs',
          'src/main.ts',
          '--once',
          'hi',
        ],
        {
          cwd: root,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            MODULE_LOG: log,
            OPENAI_API_KEY: 'sk-loads-test',
            OPENAI_BASE_URL: llm.baseUrl,
            AGENT_FUNCTION_CALL_MODEL: 'openai/loads-model',
            DEFAULT_MODE: 'chat',
            STORE_URL: 'memory://',
          },
          timeout: 30_000,
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('Loaded light.');
    const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const loaded = packagesIn(urls);
    // The hook sees what a start needs (so an empty log cannot pass for a light start).
    expect(loaded).toContain('zod');
    expect(loaded).toContain('eventsource-parser');
    expect([...loaded].filter((name) => NOT_AT_START.includes(name))).toEqual([]);
    // zod: zod/mini and the core Scout's schemas are built with, never zod classic (the package's
    // index is classic).
    const zod = urls.filter((url) => url.includes('/node_modules/zod/'));
    expect(zod.filter((url) => url.includes('/node_modules/zod/v4/mini/')).length).toBeGreaterThan(0);
    expect(zod.filter((url) => /\/v4\/classic\/|\/zod\/index\.m?js$/.test(url))).toEqual([]);
    // openai: its error classes only, never the SDK's index.
    const openai = urls.filter((url) => url.includes('/node_modules/openai/'));
    expect(openai.length).toBeGreaterThan(0);
    expect(openai.filter((url) => /\/node_modules\/openai\/index\.m?js$/.test(url))).toEqual([]);
  });
});
