import pino, { type Logger } from 'pino';
import { redactSecrets } from './llm/redact.js';

export type { Logger };

/**
 * Paths redacted from every log line. Keys and tokens must never reach a log; code also avoids
 * logging config objects whole, this is the safety net.
 */
export const REDACT_PATHS = [
  '*.apiKey',
  '*.token',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  '*.headers.authorization',
  '*.headers["x-subscription-token"]',
  'env.*_KEY',
  'env.*_TOKEN',
  'env.SLACK_SIGNING_SECRET',
  'config.env',
];

/** Nested error causes deeper than this are left as they are (they are rare and small). */
const MAX_SCRUB_DEPTH = 6;

/**
 * The configured secrets of an environment: every `*_KEY`, `*_TOKEN` and `*_SECRET` value and the
 * password of any URL variable (`SEARXNG_URL=https://user:pass@…`). Passed to `createLogger`.
 */
export function secretsOf(env: Record<string, unknown>): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== 'string' || value === '') continue;
    if (/(_KEY|_TOKEN|_SECRET|_PASSWORD)$/.test(name)) secrets.push(value);
    else if (name.endsWith('_HEADERS')) secrets.push(...headerSecrets(value));
    else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
      try {
        const password = decodeURIComponent(new URL(value).password);
        if (password) secrets.push(password);
      } catch {
        // Not a URL after all.
      }
    }
  }
  return secrets;
}

/**
 * The values of a `key=value,…` header list (OTEL_EXPORTER_OTLP_HEADERS), and the token alone of an
 * "Authorization=Bearer …" or "Basic …" value. Short values are settings, not secrets.
 */
function headerSecrets(list: string): string[] {
  const secrets: string[] = [];
  for (const entry of list.split(',')) {
    const raw = entry.slice(entry.indexOf('=') + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // Not percent-encoded after all.
    }
    for (const candidate of [raw, value, /^\S+\s+(\S+)$/.exec(value)?.[1]])
      if (candidate && candidate.length >= 8) secrets.push(candidate);
  }
  return secrets;
}

function scrub(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value, secrets);
  if (value === null || typeof value !== 'object' || depth > MAX_SCRUB_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = scrub(v, secrets, depth + 1);
  return out;
}

/**
 * JSON logs in production, pretty ones in a terminal. Beyond the redacted paths, every logged error
 * (message, stack, causes, extra fields) and every message string is scrubbed of known key shapes,
 * URL credentials and the configured `secrets`: SDK errors quote URLs and provider bodies verbatim.
 */
export function createLogger(
  options: {
    level?: string;
    pretty?: boolean;
    destination?: pino.DestinationStream;
    /** Configured keys and tokens (see `secretsOf`), removed wherever they appear in an error. */
    secrets?: readonly string[];
  } = {},
): Logger {
  const secrets = options.secrets ?? [];
  const base: pino.LoggerOptions = {
    level: options.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: (err: unknown) => scrub(pino.stdSerializers.err(err as Error), secrets) },
    hooks: {
      logMethod(args, method) {
        const clean = args.map((arg) => (typeof arg === 'string' ? redactSecrets(arg, secrets) : arg));
        return method.apply(this, clean as Parameters<typeof method>);
      },
    },
  };
  if (options.destination) return pino(base, options.destination);
  // pino-pretty runs in a worker thread (~30 MiB, and its start-up): not for a logger that writes nothing.
  if (base.level !== 'silent' && (options.pretty ?? process.stdout.isTTY)) {
    return pino({
      ...base,
      transport: { target: 'pino-pretty', options: { destination: 2, translateTime: 'HH:MM:ss' } },
    });
  }
  return pino(base);
}

/** A logger that writes nothing (pino-free, see silent-logger.ts). */
export { silentLogger } from './silent-logger.js';
