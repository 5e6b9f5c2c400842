/**
 * Prometheus metrics for /metrics. Each `createMetrics()` owns its own Registry (never prom-client's
 * global one), so tests — and two cores in one process — can each have theirs.
 *
 * Series (all prefixed `scout_`):
 * - turns_total{mode,outcome}                 outcome: ok | error | cancelled
 * - turn_duration_seconds{mode}               histogram, whole turn wall time
 * - llm_calls_total{model}                    one per stream()/complete() call
 * - llm_tokens_total{model,type}              type: input | output | reasoning (provider-reported)
 * - llm_errors_total{model,code}              LlmError code (auth, rate_limited, timeout, …)
 * - search_calls_total{provider,outcome}      outcome: ok | error (cache hits included as ok)
 * - search_cache_hits_total{provider}         served from the session cache, no HTTP request
 * - edits_sent_total{surface}                 message posts/edits sent by an adapter (`recordEdit`)
 * - errors_total{kind}                        failed turns by kind (llm, search, store, …) and adapter errors
 * - surface_connections{surface}              gauge: platform connections ready now (sockets, shards)
 * - surface_ready{surface}                    gauge: 1 when the surface can receive, else 0
 * - surface_reconnects_total{surface}         attempts to open a new connection after a drop or refresh
 * - surface_connection_gaps_total{surface}    times the surface had no connection left to receive on
 * plus prom-client's default process metrics (CPU, memory, event loop lag, GC) prefixed `scout_`.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Mode } from '../surface.js';

const PREFIX = 'scout_';
/**
 * Turn latency buckets (seconds): chat answers land in 1–10 s, agent turns with several searches
 * in 10–60 s, and AGENT_MAX_EXECUTION_TIME allows up to 300 s.
 */
const TURN_BUCKETS_S = [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];
/**
 * How often the event-loop lag series sample the loop (ms). prom-client's default, 10 ms, is a timer
 * that wakes the process 100 times a second for ever, busy or idle: an idle Scout spent 8.8 ms of CPU
 * a second on it, and a lone 6 s turn about 48 ms of its 202 (docs/performance.md).
 * Ten samples a second still catch any stall worth an alert (one of 100 ms or more is seen whole).
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

export type TurnOutcome = 'ok' | 'error' | 'cancelled';
export type TokenType = 'input' | 'output' | 'reasoning';
export type SurfaceName = 'slack' | 'discord' | 'console';

export interface ScoutMetrics {
  readonly registry: Registry;
  readonly turns: Counter<'mode' | 'outcome'>;
  readonly turnDuration: Histogram<'mode'>;
  readonly llmCalls: Counter<'model'>;
  readonly llmTokens: Counter<'model' | 'type'>;
  readonly llmErrors: Counter<'model' | 'code'>;
  readonly searchCalls: Counter<'provider' | 'outcome'>;
  readonly searchCacheHits: Counter<'provider'>;
  readonly editsSent: Counter<'surface'>;
  readonly errors: Counter<'kind'>;
  readonly surfaceConnections: Gauge<'surface'>;
  readonly surfaceReady: Gauge<'surface'>;
  readonly surfaceReconnects: Counter<'surface'>;
  readonly surfaceGaps: Counter<'surface'>;
  /** Adapters call this for every message post or edit they send to the platform. */
  recordEdit(surface: SurfaceName): void;
  /** Counts an error that did not end a turn (adapter API failures, store outages seen by a surface). */
  recordError(kind: string): void;
  recordTurn(mode: Mode, outcome: TurnOutcome, ms: number): void;
  /** Prometheus text exposition of every series. */
  render(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsOptions {
  /** prom-client's process metrics (default true; tests may turn them off to stay quiet). */
  defaultMetrics?: boolean;
}

export function createMetrics(options: MetricsOptions = {}): ScoutMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true)
    collectDefaultMetrics({
      register: registry,
      prefix: PREFIX,
      eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
    });
  const registers = [registry];

  const turns = new Counter({
    name: `${PREFIX}turns_total`,
    help: 'Conversation turns by mode and outcome (ok, error, cancelled).',
    labelNames: ['mode', 'outcome'] as const,
    registers,
  });
  const turnDuration = new Histogram({
    name: `${PREFIX}turn_duration_seconds`,
    help: 'Wall time of a turn, from lock acquired to final render.',
    labelNames: ['mode'] as const,
    buckets: TURN_BUCKETS_S,
    registers,
  });
  const llmCalls = new Counter({
    name: `${PREFIX}llm_calls_total`,
    help: 'Model calls (one per stream or complete, retries inside a call not counted).',
    labelNames: ['model'] as const,
    registers,
  });
  const llmTokens = new Counter({
    name: `${PREFIX}llm_tokens_total`,
    help: 'Tokens as reported by the provider, by type (input, output, reasoning).',
    labelNames: ['model', 'type'] as const,
    registers,
  });
  const llmErrors = new Counter({
    name: `${PREFIX}llm_errors_total`,
    help: 'Model calls that failed, by error code.',
    labelNames: ['model', 'code'] as const,
    registers,
  });
  const searchCalls = new Counter({
    name: `${PREFIX}search_calls_total`,
    help: 'Web searches asked of the search service, by outcome.',
    labelNames: ['provider', 'outcome'] as const,
    registers,
  });
  const searchCacheHits = new Counter({
    name: `${PREFIX}search_cache_hits_total`,
    help: 'Web searches answered from the session cache without a request.',
    labelNames: ['provider'] as const,
    registers,
  });
  const editsSent = new Counter({
    name: `${PREFIX}edits_sent_total`,
    help: 'Message posts and edits sent to a platform.',
    labelNames: ['surface'] as const,
    registers,
  });
  const errors = new Counter({
    name: `${PREFIX}errors_total`,
    help: 'Errors by kind: failed turns (llm, search, store, internal, reported) and adapter errors.',
    labelNames: ['kind'] as const,
    registers,
  });

  const surfaceConnections = new Gauge({
    name: `${PREFIX}surface_connections`,
    help: 'Platform connections ready to receive now (Slack Socket Mode sockets, Discord gateway shards).',
    labelNames: ['surface'] as const,
    registers,
  });
  const surfaceReady = new Gauge({
    name: `${PREFIX}surface_ready`,
    help: '1 when the surface can receive messages (every connection it needs is ready), else 0.',
    labelNames: ['surface'] as const,
    registers,
  });
  const surfaceReconnects = new Counter({
    name: `${PREFIX}surface_reconnects_total`,
    help: 'Attempts to open a new platform connection after a drop or a refresh.',
    labelNames: ['surface'] as const,
    registers,
  });
  const surfaceGaps = new Counter({
    name: `${PREFIX}surface_connection_gaps_total`,
    help: 'Times a surface was left with no connection to receive on (deliveries in that gap can be lost).',
    labelNames: ['surface'] as const,
    registers,
  });

  return {
    registry,
    turns,
    turnDuration,
    llmCalls,
    llmTokens,
    llmErrors,
    searchCalls,
    searchCacheHits,
    editsSent,
    errors,
    surfaceConnections,
    surfaceReady,
    surfaceReconnects,
    surfaceGaps,
    recordEdit: (surface) => editsSent.inc({ surface }),
    recordError: (kind) => errors.inc({ kind }),
    recordTurn(mode, outcome, ms) {
      turns.inc({ mode, outcome });
      turnDuration.observe({ mode }, ms / 1000);
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
