/**
 * The environment variables of operations (part of EnvSchema, env.ts): the HTTP port, logging,
 * shutdown. Observability variables (OpenTelemetry OTEL_*) belong in this table too, as a section
 * of their own after SHUTDOWN_GRACE_MS.
 */
import { intIn, oneOf } from './env-values.js';

export const OPS_FIELDS = {
  // ── Operations ──────────────────────────────────────────────────────────────
  PORT: intIn(3000, 0, 65_535),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  SHUTDOWN_GRACE_MS: intIn(25_000, 0, 600_000),
};
