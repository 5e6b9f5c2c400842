/** Whether traces are on; dependency-free, so the composition root can ask without loading the SDK. */
import type { Env } from '../../config/env.js';

/** Tracing is on: an OTLP endpoint is set and OTEL_SDK_DISABLED is not. */
export function tracingEnabled(env: Env): boolean {
  return (
    !env.OTEL_SDK_DISABLED &&
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  );
}
