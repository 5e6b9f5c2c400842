/**
 * The environment variables of operations (part of EnvSchema, env.ts): the HTTP port, logging,
 * shutdown, and observability — OpenTelemetry traces (TRACE_FIELDS, joined last in EnvSchema, after
 * the limits, where they were added). More observability variables go in TRACE_FIELDS or a table
 * of their own here.
 */
import * as z from '../schema/zod.js';
import { bool, intIn, oneOf, optionalString, url } from './env-values.js';

export const OPS_FIELDS = {
  // ── Operations ──────────────────────────────────────────────────────────────
  PORT: intIn(3000, 0, 65_535),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  SHUTDOWN_GRACE_MS: intIn(25_000, 0, 600_000),
};

export const TRACE_FIELDS = {
  // ── Traces (OpenTelemetry, src/ops/tracing; the exporter reads these itself) ─
  /** Switches tracing on: the OTLP/HTTP base URL (`/v1/traces` is added) … */
  OTEL_EXPORTER_OTLP_ENDPOINT: url(),
  /** … or the full traces URL, as is. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url(),
  OTEL_EXPORTER_OTLP_PROTOCOL: oneOf(['http/protobuf', 'http/json'], 'http/protobuf'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.optional(z.enum(['http/protobuf', 'http/json'])),
  /** `key=value,…` sent with every export (back-end API keys): secrets, scrubbed from logs. */
  OTEL_EXPORTER_OTLP_HEADERS: optionalString,
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: optionalString,
  OTEL_SERVICE_NAME: optionalString,
  OTEL_SDK_DISABLED: bool,
  /** Puts message text (questions, answers, prompts, tool arguments and results) on spans. */
  OTEL_CAPTURE_CONTENT: bool,
};
