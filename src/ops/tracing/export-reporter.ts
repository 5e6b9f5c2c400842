/**
 * What becomes of the spans, watched: a failed export (endpoint unreachable, refusing, too slow)
 * drops its spans — the SDK never retries past its own time limit — as do spans that never reached
 * the trace thread (it stopped, or waits to restart). The first loss is logged, with how many
 * spans went; the next success says the endpoint answers again, with how many were dropped in
 * between. Without this, failures go to OpenTelemetry's diagnostic logger, which is silent unless
 * configured.
 */
import type { Logger } from '../../logger.js';

/** `ExportResultCode` of @opentelemetry/core (not a dependency of Scout's own). */
export const SUCCESS = 0;
export const FAILED = 1;

export class ExportReporter {
  private failing = false;
  private dropped = 0;

  constructor(private readonly log: Logger) {}

  /** An export's result, as the trace thread reports it. */
  exported(spans: number, error?: Error): void {
    if (error) this.lost(spans, error);
    else if (this.failing) {
      this.failing = false;
      this.log.info({ dropped: this.dropped }, 'trace export works again');
      this.dropped = 0;
    }
  }

  /** Spans that will never reach the endpoint, and why. */
  lost(spans: number, error: Error): void {
    this.dropped += spans;
    if (this.failing) return;
    this.failing = true;
    this.log.warn(
      { err: error, spans },
      'trace export failed: spans are dropped until the OTLP endpoint answers (logged once)',
    );
  }
}
