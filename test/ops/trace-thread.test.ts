/**
 * Spans recorded on the main thread (src/ops/tracing/recorded-spans.ts) and made, batched and
 * exported by the SDK on the trace thread (trace-thread.ts), driven as start-tracing.ts wires them:
 * the recording tracer's spans go to `TraceThread.send` as they end. What reaches an OTLP receiver
 * on loopback must be the bytes the official SDK and serializer make of the same calls made on
 * the SDK directly; times taken as they happen arrive as they happened. A thread that dies loses
 * (and reports) what it held, and the next spans start another; threads that keep dying are
 * started again only after a back-off; a refused export is reported with the endpoint's status.
 */
import { Worker } from 'node:worker_threads';
import {
  type Context,
  type HrTime,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  AlwaysOnSampler,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recordingTracer, type SpanRecord, type SpanStarter } from '../../src/ops/tracing/recorded-spans.js';
import { SpanIds } from '../../src/ops/tracing/span-ids.js';
import { TraceThread } from '../../src/ops/tracing/trace-thread.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

/** Ids handed out in a fixed order: the same for the SDK's spans and the recorded ones. */
function scriptedIds() {
  let traces = 0;
  let spans = 0;
  return {
    generateTraceId: () => `${(++traces).toString(16).padStart(4, '0')}`.padEnd(32, 'a'),
    generateSpanId: () => `${(++spans).toString(16).padStart(4, '0')}`.padEnd(16, 'b'),
  };
}

const at = (ms: number): HrTime => [1_767_000_000 + Math.floor(ms / 1000), (ms % 1000) * 1_000_000 + 17];

/**
 * A turn with everything the SDK and serializer read: a root; a child of every attribute type, a
 * link with a trace state, an event, a recorded exception, an error status with its message,
 * attributes set after it started (some past the count limit), a new name; a grandchild that ends
 * after the root. All at given times, and one error (its stack is on the span), so both paths send
 * the same bytes.
 */
function richTurn(tracer: SpanStarter, error: Error) {
  const root = tracer.startSpan(
    'invoke_agent Scout',
    { attributes: { 'gen_ai.operation.name': 'invoke_agent' }, startTime: at(0) },
    ROOT_CONTEXT,
  );
  const turn: Context = trace.setSpan(ROOT_CONTEXT, root);
  const child = tracer.startSpan(
    'chat model',
    {
      kind: SpanKind.CLIENT,
      startTime: at(5),
      attributes: {
        text: 'ünïcode ✓',
        int: 42,
        double: 0.25,
        flag: true,
        list: ['stop', 'length'],
        numbers: [1, 2.5],
      },
      links: [
        {
          context: {
            traceId: '0af7651916cd43dd8448eb211c80319c',
            spanId: 'b7ad6b7169203331',
            traceFlags: TraceFlags.SAMPLED,
            isRemote: true,
            traceState: new TraceState('vendor=value,other=1'),
          },
          attributes: { 'link.kind': 'follows' },
        },
      ],
    },
    turn,
  );
  child.addEvent('tokens', { 'gen_ai.usage.output_tokens': 12 }, at(7));
  child.recordException(error, at(8));
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'rate_limited' });
  for (let a = 0; a < 10; a++) child.setAttribute(`extra.${a}`, a);
  child.updateName('chat test-model');
  const grandchild = tracer.startSpan('search tavily', { startTime: at(9) }, trace.setSpan(turn, child));
  child.end(at(20));
  root.end(at(30));
  grandchild.setAttribute('scout.search.results', 3);
  grandchild.end(at(31));
}

/** The thread's resource, as trace-thread-source.ts builds it. */
const scoutResource = () =>
  defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'scout' }))
    .merge(detectResources({ detectors: [envDetector] }));

/** Records what the thread reports. */
function reports() {
  const exported: Array<{ spans: number; error?: Error }> = [];
  const lost: Array<{ spans: number; error: Error }> = [];
  return {
    exported,
    lost,
    reporter: {
      exported: (spans: number, error?: Error) => exported.push({ spans, ...(error ? { error } : {}) }),
      lost: (spans: number, error: Error) => lost.push({ spans, error }),
    },
  };
}

/** A plain ended span, as the recording tracer sends it. */
function record(name: string, ids = new SpanIds()): SpanRecord {
  const now = performance.now();
  return {
    name,
    kind: SpanKind.INTERNAL,
    traceId: ids.generateTraceId(),
    spanId: ids.generateSpanId(),
    start: now - 1,
    end: now,
    attributes: {},
  };
}

/** The threads spans were handed to; `after` runs on each after a message is posted to it. */
function watchThreads(after?: (worker: Worker) => void): Set<Worker> {
  const threads = new Set<Worker>();
  const post = Worker.prototype.postMessage;
  vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (
    this: Worker,
    ...args: Parameters<Worker['postMessage']>
  ) {
    threads.add(this);
    post.apply(this, args);
    after?.(this);
  });
  return threads;
}

describe('the trace thread', () => {
  let receiver: OtlpReceiver;
  const saved = { ...process.env };

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    // The thread reads its endpoint and limits from the environment, as in production.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
    process.env.OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT = '12';
    process.env.OTEL_RESOURCE_ATTRIBUTES = 'deployment.environment=test';
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    process.env = { ...saved };
    await receiver.close();
  });

  it.each([
    ['http/protobuf', ProtobufTraceSerializer],
    ['http/json', JsonTraceSerializer],
  ] as const)(
    'sends, in %s, the bytes the official SDK and serializer make of the same calls',
    async (protocol, serializer) => {
      const { reporter, exported } = reports();
      const thread = new TraceThread(protocol, reporter);
      const error = Object.assign(new Error('slow down'), { code: 'rate_limited' });
      richTurn(
        recordingTracer(new ParentBasedSampler({ root: new AlwaysOnSampler() }), scriptedIds(), (span) =>
          thread.send(span),
        ),
        error,
      );
      await thread.shutdown();

      const memory = new InMemorySpanExporter();
      const direct: Tracer = new BasicTracerProvider({
        resource: scoutResource(),
        idGenerator: scriptedIds(),
        spanProcessors: [new SimpleSpanProcessor(memory)],
      }).getTracer('scout');
      richTurn(direct, error);
      const expected = serializer.serializeRequest(memory.getFinishedSpans());

      expect(exported).toEqual([{ spans: 3 }]);
      expect(receiver.requests).toHaveLength(1);
      expect(expected).toBeDefined();
      expect(receiver.requests[0]!.body.toString('base64')).toBe(Buffer.from(expected!).toString('base64'));
      // And the receiver reads them back: the tree, the limit applied, the resource from the variables.
      const received = receiver.spans();
      expect(received.map((s) => [s.name, s.parentSpanId])).toEqual([
        ['chat test-model', '0001bbbbbbbbbbbb'],
        ['invoke_agent Scout', ''],
        ['search tavily', '0002bbbbbbbbbbbb'],
      ]);
      expect(Object.keys(received[0]!.attributes)).toHaveLength(12);
      expect(received[0]!.resource['deployment.environment']).toBe('test');
      expect(received[0]!.resource['service.name']).toBe('scout');
    },
  );

  it('spans whose times were taken as they happened arrive with those times', async () => {
    const { reporter } = reports();
    const thread = new TraceThread(undefined, reporter);
    const tracer = recordingTracer(new AlwaysOnSampler(), new SpanIds(), (span) => thread.send(span));
    // Read on the spans' own clock (the time origin plus the monotonic clock; the wall clock may
    // drift from it in a long-lived process), just before and after each moment: no bound on how
    // long the machine takes between two statements.
    const now = () => performance.timeOrigin + performance.now();
    const beforeStart = now();
    const root = tracer.startSpan('turn', {}, ROOT_CONTEXT);
    const afterStart = now();
    await new Promise((resolve) => setTimeout(resolve, 60));
    const beforeEnd = now();
    root.end();
    const afterEnd = now();
    await thread.shutdown();
    const [span] = receiver.spans();
    // Whole milliseconds on the wire: within 1 ms of each window.
    expect(span?.startMs).toBeGreaterThanOrEqual(beforeStart - 1);
    expect(span?.startMs).toBeLessThanOrEqual(afterStart + 1);
    expect(span?.endMs).toBeGreaterThanOrEqual(beforeEnd - 1);
    expect(span?.endMs).toBeLessThanOrEqual(afterEnd + 1);
  });

  it('a thread that dies loses, and reports, the spans it held; the next spans start another', async () => {
    const threads = watchThreads();
    const { reporter, lost } = reports();
    const thread = new TraceThread(undefined, reporter);

    thread.send(record('lost'));
    const flushed = thread.flush();
    const [first] = threads;
    await first?.terminate();
    await flushed;
    expect(lost).toHaveLength(1);
    expect(lost[0]?.spans).toBe(1);
    expect(lost[0]?.error.message).toMatch(/thread stopped/);

    thread.send(record('delivered'));
    await thread.flush();
    expect(threads.size).toBe(2);
    expect(receiver.spans().map((s) => s.name)).toEqual(['delivered']);

    await thread.shutdown();
    thread.send(record('after'));
    await thread.flush();
    expect(threads.size).toBe(2);
    expect(receiver.spans().map((s) => s.name)).toEqual(['delivered']);
  });

  it('a thread that keeps dying before it is ready is started again only after a back-off', async () => {
    // Each thread dies with the spans it was handed, as a thread that cannot load its modules does.
    const threads = watchThreads((worker) => void worker.terminate());
    const { reporter, lost } = reports();
    const thread = new TraceThread(undefined, reporter);
    for (let i = 0; i < 4; i++) {
      thread.send(record(`try ${i}`));
      await thread.flush();
    }
    // The first death is replaced at once; after the second, spans are dropped without a thread.
    expect(threads.size).toBe(2);
    expect(lost.map((l) => l.spans)).toEqual([1, 1, 1, 1]);
    expect(lost[2]?.error.message).toMatch(/restarts later/);

    vi.restoreAllMocks();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    thread.send(record('after the back-off'));
    await thread.flush();
    expect(receiver.spans().map((s) => s.name)).toEqual(['after the back-off']);
    await thread.shutdown();
  });

  it("reports a refused export as failed, with the endpoint's HTTP status", async () => {
    receiver.refuseWith = 400;
    const { reporter, exported } = reports();
    const thread = new TraceThread(undefined, reporter);
    thread.send(record('refused'));
    await thread.shutdown();
    expect(exported).toHaveLength(1);
    expect(exported[0]?.spans).toBe(1);
    expect(exported[0]?.error).toMatchObject({ code: 400 });
    expect(receiver.spans()).toEqual([]);
  });
});
