import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Logger } from '../../../src/logger.js';

/**
 * Upstream logs every failed attempt at error and its protocol chatter at info; the pool reports
 * failures itself (with causes, throttled), so the client's own lines go to debug.
 */
export function quietLogger(log: Logger): BoltLogger {
  const debug = (...m: unknown[]) => log.debug(m.map(String).join(' '));
  let level = LogLevel.INFO;
  return {
    debug,
    info: debug,
    warn: debug,
    error: debug,
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
