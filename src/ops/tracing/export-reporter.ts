/**
 * The exporter, watched: a failed export (endpoint unreachable, refusing, too slow) drops its spans
 * — the SDK never retries past its own time limit — and is logged once, with how many spans went;
 * the next success says the endpoint answers again. Without this, failures go to OpenTelemetry's
 * diagnostic logger, which is silent unless configured.
 */
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../../logger.js';

/** What an export reports (@opentelemetry/core's ExportResult, named through the exporter's own type). */
export type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];
/** `ExportResultCode` of @opentelemetry/core (not a dependency of Scout's own). */
export const SUCCESS = 0;
export const FAILED = 1;

export class ReportingExporter implements SpanExporter {
  private failing = false;
  private dropped = 0;

  constructor(
    private readonly inner: SpanExporter,
    private readonly log: Logger,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== SUCCESS) {
        this.dropped += spans.length;
        if (!this.failing) {
          this.failing = true;
          this.log.warn(
            { err: result.error, spans: spans.length },
            'trace export failed: spans are dropped until the OTLP endpoint answers (logged once)',
          );
        }
      } else if (this.failing) {
        this.failing = false;
        this.log.info({ dropped: this.dropped }, 'trace export works again');
        this.dropped = 0;
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
