/**
 * The trace variables (issue 29): what switches traces on, a protocol Scout cannot speak stopping
 * start-up with a line naming the variable, and the exporter's headers (a back-end's API key)
 * treated as the secrets they are in logs.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { ConfigError } from '../../src/errors.js';
import { createLogger, secretsOf } from '../../src/logger.js';
import { tracingEnabled } from '../../src/ops/tracing/enabled.js';

const BASE = { OPENAI_API_KEY: 'sk-otel-config-test', STORE_URL: 'memory://' };

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...BASE, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('trace configuration', () => {
  it('is on with an OTLP endpoint (base or traces URL), off without one or with OTEL_SDK_DISABLED', () => {
    expect(tracingEnabled(loadConfig(BASE).env)).toBe(false);
    expect(
      tracingEnabled(loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' }).env),
    ).toBe(true);
    const tracesOnly = { ...BASE, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otel.example.com/v1/traces' };
    expect(tracingEnabled(loadConfig(tracesOnly).env)).toBe(true);
    expect(tracingEnabled(loadConfig({ ...tracesOnly, OTEL_SDK_DISABLED: 'true' }).env)).toBe(false);
  });

  it('refuses gRPC and endpoints that are not http(s) URLs, naming the variable', () => {
    const grpc = problemsOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4317',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(grpc).toHaveLength(1);
    expect(grpc[0]).toMatch(/^OTEL_EXPORTER_OTLP_PROTOCOL: /);
    const endpoint = problemsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' });
    expect(endpoint).toEqual([
      expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT: must be an http\(s\) URL/),
    ]);
    expect(endpoint.join('\n')).not.toContain('localhost:4318');
  });

  it('treats the exporter headers as secrets: never written to a log', () => {
    const env = loadConfig({
      ...BASE,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://cloud.langfuse.com/api/public/otel',
      OTEL_EXPORTER_OTLP_HEADERS:
        'Authorization=Basic cGstbGYtMTIzNDU2Nzg6c2stbGYtYWJjZGVmZ2g=,x-langfuse-ingestion-version=4',
    }).env;
    const secrets = secretsOf(env);
    expect(secrets).toContain('cGstbGYtMTIzNDU2Nzg6c2stbGYtYWJjZGVmZ2g=');
    // Settings (short values) are not secrets: scrubbing them would garble logs.
    expect(secrets).not.toContain('4');
    let written = '';
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        written += chunk.toString();
        done();
      },
    });
    const logger = createLogger({ level: 'info', destination, secrets });
    logger.warn(
      { err: new Error('401 for header Basic cGstbGYtMTIzNDU2Nzg6c2stbGYtYWJjZGVmZ2g=') },
      'export failed',
    );
    expect(written).toContain('export failed');
    expect(written).not.toContain('cGstbGYtMTIzNDU2Nzg6c2stbGYtYWJjZGVmZ2g=');
  });
});
