import pino, { type Logger } from 'pino';

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

/** JSON logs in production, pretty ones in a terminal. */
export function createLogger(
  options: { level?: string; pretty?: boolean; destination?: pino.DestinationStream } = {},
): Logger {
  const base = {
    level: options.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  if (options.destination) return pino(base, options.destination);
  if (options.pretty ?? process.stdout.isTTY) {
    return pino({
      ...base,
      transport: { target: 'pino-pretty', options: { destination: 2, translateTime: 'HH:MM:ss' } },
    });
  }
  return pino(base);
}

/** A logger that writes nothing, for tests and `--once`. */
export const silentLogger: Logger = pino({ level: 'silent' });
