/**
 * OpenTelemetry traces, loaded (by dynamic import) only when OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set. The official SDK: a tracer provider with an OTLP/HTTP
 * exporter (protobuf, or JSON with OTEL_EXPORTER_OTLP_PROTOCOL=http/json) behind a batch processor,
 * run on a thread of its own (trace-thread.ts); the main thread records each span as plain data and
 * sends it there when it ends (recorded-spans.ts), and decides sampling with the sampler the SDK
 * builds from OTEL_TRACES_SAMPLER. No context manager: each turn's span is handed to what the turn
 * does explicitly (trace-turn.ts), and nothing is registered globally. The exporter reads the
 * standard variables itself (endpoint, headers, timeout, compression), the processor the OTEL_BSP_*
 * ones, the resource OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
 *
 * A slow or unreachable endpoint never slows a turn: spans are exported in the background from a
 * bounded queue (spans past it are dropped), each export has a time limit, and the failure is logged
 * once (export-reporter.ts). Shutdown flushes what is queued, for at most FLUSH_BOUND_MS.
 */
// The SDK's own reading of OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (not in its index; the
// version is pinned to a minor in package.json).
import { buildSamplerFromEnv } from '@opentelemetry/sdk-trace-base/build/src/config.js';
import type { Config } from '../../config/env.js';
import type { BuildOptions } from '../../core/build-scout.js';
import { loadPriceTable } from '../../llm/pricing.js';
import { redactSecrets } from '../../llm/redact.js';
import { type Logger, secretsOf } from '../../logger.js';
import { mcpSecrets } from '../../mcp/mcp-config.js';
import { combineObservers } from './combine-observers.js';
import { ExportReporter } from './export-reporter.js';
import { recordingTracer } from './recorded-spans.js';
import { SpanIds } from './span-ids.js';
import { TraceThread } from './trace-thread.js';
import { traceLlm } from './trace-llm.js';
import { traceSearch } from './trace-search.js';
import { traceTools } from './trace-tools.js';
import { traceTurns } from './trace-turn.js';

/** Shutdown waits at most this long for the last spans to reach the endpoint. */
export const FLUSH_BOUND_MS = 3_000;
/** Longest text put on a span with content capture on (characters); the rest is cut. */
export const MAX_CAPTURED_CHARS = 16_000;

export type Instrumentation = Pick<BuildOptions, 'observer' | 'wrapLlm' | 'wrapSearch'>;

export interface Tracing {
  /** The hooks for buildScout: those given (metrics), with turns traced. */
  instrument(base?: Instrumentation): Instrumentation;
  /** Flushes queued spans (bounded) and stops. */
  shutdown(): Promise<void>;
}

export async function startTracing(config: Config, logger: Logger): Promise<Tracing> {
  const env = config.env;
  const log = logger.child({ component: 'tracing' });
  // The thread's exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT and
  // _COMPRESSION itself.
  const thread = new TraceThread(
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL,
    new ExportReporter(log),
  );
  const tracer = recordingTracer(buildSamplerFromEnv(), new SpanIds(), (span) => thread.send(span));

  const secrets = [...secretsOf(env), ...mcpSecrets(config.mcpServers)];
  // Content goes on spans only when asked for, bounded and scrubbed of keys like log lines are.
  const capture = env.OTEL_CAPTURE_CONTENT
    ? (text: string) =>
        redactSecrets(text.length > MAX_CAPTURED_CHARS ? text.slice(0, MAX_CAPTURED_CHARS) : text, secrets)
    : undefined;
  const tracers = {
    llm: traceLlm({ tracer, prices: loadPriceTable(env.PRICE_TABLE), ...(capture ? { capture } : {}) }),
    search: traceSearch(tracer, capture),
    tools: traceTools(tracer, capture),
  };
  const observer = traceTurns(tracer, tracers, capture);
  log.info(
    {
      protocol: env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL,
      content: Boolean(capture),
    },
    'tracing on: one trace per turn, exported over OTLP/HTTP',
  );

  return {
    instrument(base = {}) {
      // Each turn's scope hears its calls where the turn's meter counts them.
      return { ...base, observer: base.observer ? combineObservers(base.observer, observer) : observer };
    },
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<'cut'>((resolve) => {
        timer = setTimeout(() => resolve('cut'), FLUSH_BOUND_MS);
        timer.unref();
      });
      const flushed = thread.shutdown().then(
        () => 'done' as const,
        (err: unknown) => {
          log.warn({ err }, 'tracing shutdown failed');
          return 'done' as const;
        },
      );
      if ((await Promise.race([flushed, bound])) === 'cut')
        log.warn({ boundMs: FLUSH_BOUND_MS }, 'trace flush cut off at shutdown: the last spans are dropped');
      clearTimeout(timer);
      // Past the bound, an export still under way is given up with its thread.
      thread.close();
    },
  };
}
