/**
 * The trace id on log lines: with tracing on, the logger's pino `mixin` asks this hook for fields on
 * every line. It imports nothing, so the logger stays OpenTelemetry-free; the tracing module installs
 * the real lookup when it starts (and removes it when it stops).
 */

/** Fields added to a log line: `trace_id` and `span_id` while a traced turn runs, else none. */
export type TraceLogFields = Record<string, string>;

let lookup: (() => TraceLogFields | undefined) | undefined;

/**
 * The pino mixin. A fresh object every time: pino's default merge writes the line's own fields
 * into the object the mixin returns.
 */
export function traceLogFields(): TraceLogFields {
  return lookup?.() ?? {};
}

/** Installs (or, with undefined, removes) the active-span lookup. */
export function setTraceLogLookup(next: (() => TraceLogFields | undefined) | undefined): void {
  lookup = next;
}
