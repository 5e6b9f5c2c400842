/**
 * A turn as the traces see it, for tests of single spans: the trace observer's `aroundTurn` runs
 * `work` with the scope it hands a turn, and a turn meter told of that scope, as the core does
 * (src/core/scout.ts): the meter's model clients and tool registry report their calls to it, and
 * steps (searches, context reads) are heard through `scope.hearStep`.
 */
import type { Tracer } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { TurnMeter } from '../../src/budget/turn-meter.js';
import type { TurnScope } from '../../src/core/scout-deps.js';
import { traceLlm } from '../../src/ops/tracing/trace-llm.js';
import { traceSearch } from '../../src/ops/tracing/trace-search.js';
import { traceTools } from '../../src/ops/tracing/trace-tools.js';
import { traceTurns } from '../../src/ops/tracing/trace-turn.js';
import type { IncomingMessage, TurnSink } from '../../src/surface.js';

/** A tracer whose spans are kept in memory as they end. */
export function memoryTracer(): { tracer: Tracer; spans: () => ReadableSpan[] } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer('test'), spans: () => exporter.getFinishedSpans() };
}

const sink: TurnSink = { update: () => {}, done: async () => {}, reply: async () => {} };

export async function inTracedTurn(
  tracer: Tracer,
  work: (meter: TurnMeter, scope: TurnScope) => Promise<void>,
): Promise<void> {
  const observer = traceTurns(tracer, {
    llm: traceLlm({ tracer, prices: {} }),
    search: traceSearch(tracer),
    tools: traceTools(tracer),
  });
  const message: IncomingMessage = {
    channelId: 'slack:T1:C1',
    conversationId: 'c1',
    messageId: 'm1',
    userId: 'U1',
    text: 'secret question',
  };
  await observer.aroundTurn!(message, sink, async (_m, _s, scope) => {
    const meter = new TurnMeter();
    meter.tellScope(scope!);
    await work(meter, scope!);
  });
}
