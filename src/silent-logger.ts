/**
 * A logger that writes nothing, without loading pino: `--once` and the terminal's fallbacks log
 * nothing, and pino (with its serializers, redaction and stream helpers) was a measurable part of a
 * cold start (docs/performance.md). It implements the Logger methods Scout calls — the levels and
 * `child` — plus the few read-only members libraries look at.
 */
import type { Logger } from 'pino';

const noop = (): void => {};

function create(): Logger {
  const logger = {
    level: 'silent',
    trace: noop,
    debug: noop,
    info: noop,
    warn: noop,
    error: noop,
    fatal: noop,
    silent: noop,
    child: () => logger,
    isLevelEnabled: () => false,
    bindings: () => ({}),
    flush: noop,
  };
  return logger as unknown as Logger;
}

/** A logger that writes nothing, for tests, `--once` and defaults. */
export const silentLogger: Logger = create();
