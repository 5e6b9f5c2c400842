/**
 * A child span around one piece of a turn's work: started under `parent`, ended when the work
 * settles, marked failed (with the error's kind, never its message) when it throws. Shared by the
 * turn's own spans (context reading, delivery, waiting for the user) and the search spans; `failed`
 * by every span that can fail (model and tool calls too).
 */
import { type Context, type Span, type SpanOptions, SpanStatusCode } from '@opentelemetry/api';
import type { SpanStarter } from './recorded-spans.js';
import { ERROR_TYPE } from './genai.js';

/** Marks a span failed, with the kind of error (`error.type`). */
export function failed(span: Span, type: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute(ERROR_TYPE, type);
}

export interface SpannedOptions<T> extends SpanOptions {
  /** Reads the result onto the span before it ends. */
  after?: (span: Span, result: T) => void;
  /** The `error.type` of a failure (default: the error's class name). */
  errorType?: (err: unknown) => string;
}

const errorName = (err: unknown) => (err instanceof Error ? err.name : 'unknown');

export async function spanned<T>(
  tracer: SpanStarter,
  parent: Context,
  name: string,
  options: SpannedOptions<T>,
  work: () => Promise<T>,
): Promise<T> {
  const { after, errorType = errorName, ...spanOptions } = options;
  const span = tracer.startSpan(name, spanOptions, parent);
  try {
    const result = await work();
    after?.(span, result);
    return result;
  } catch (err) {
    failed(span, errorType(err));
    throw err;
  } finally {
    span.end();
  }
}
