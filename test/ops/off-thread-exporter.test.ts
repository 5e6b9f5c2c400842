/**
 * The span exporter's thread (src/ops/tracing/off-thread-exporter.ts), driven as the batch processor
 * drives it: `export(spans, done)`, then `shutdown()`. A thread that dies fails the export it held,
 * and the next export starts a new thread that delivers; threads that keep dying are started again
 * only after a back-off; after shutdown, exports fail at once.
 */
import { Worker } from 'node:worker_threads';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OffThreadExporter } from '../../src/ops/tracing/off-thread-exporter.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

type Result = Parameters<Parameters<OffThreadExporter['export']>[1]>[0];

/** Finished spans, as the batch processor hands them over. */
function finishedSpans(names: string[]): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer(
    'test',
  );
  for (const name of names) tracer.startSpan(name).end();
  return memory.getFinishedSpans();
}

/**
 * Spans with everything the serializer reads: parents, every attribute type, events, a link with
 * a trace state, an error with its message, dropped attributes, two resources and two scopes.
 */
function richSpans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor(memory);
  const providers = [
    new BasicTracerProvider({
      resource: resourceFromAttributes(
        { 'service.name': 'scout', 'deployment.environment': 'test' },
        {
          schemaUrl: 'https://opentelemetry.io/schemas/1.37.0',
        },
      ),
      spanProcessors: [processor],
      spanLimits: { attributeCountLimit: 8 },
    }),
    new BasicTracerProvider({ spanProcessors: [processor] }),
  ];
  for (const [i, provider] of providers.entries()) {
    const tracer = provider.getTracer(`scope ${i}`, i === 0 ? '1.2.3' : undefined, {
      schemaUrl: i === 0 ? 'https://example.com/schema' : undefined,
    });
    const root = tracer.startSpan('invoke_agent Scout', {
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
    });
    const child = tracer.startSpan(
      'chat model',
      {
        kind: SpanKind.CLIENT,
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
      trace.setSpan(ROOT_CONTEXT, root),
    );
    child.addEvent('tokens', { 'gen_ai.usage.output_tokens': 12 });
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'rate_limited' });
    for (let a = 0; a < 10; a++) child.setAttribute(`extra.${a}`, a);
    child.end();
    root.end();
  }
  return memory.getFinishedSpans();
}

const exported = (exporter: OffThreadExporter, spans: ReadableSpan[]) =>
  new Promise<Result>((resolve) => exporter.export(spans, resolve));

describe('the span exporter thread', () => {
  let receiver: OtlpReceiver;
  const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    // The exporter reads its endpoint from the environment when it is made, as in production.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
    await receiver.close();
  });

  it.each([
    ['http/protobuf', ProtobufTraceSerializer],
    ['http/json', JsonTraceSerializer],
  ] as const)(
    'sends, in %s, the bytes the official serializer makes of the spans',
    async (protocol, serializer) => {
      const spans = richSpans();
      const exporter = new OffThreadExporter(protocol);
      const result = await exported(exporter, spans);
      await exporter.shutdown();
      expect(result.code).toBe(0);
      expect(receiver.requests).toHaveLength(1);
      const expected = serializer.serializeRequest(spans);
      expect(expected).toBeDefined();
      expect(receiver.requests[0]!.body.equals(Buffer.from(expected!))).toBe(true);
      // And the receiver reads them back: both resources, both scopes, the parents.
      const received = receiver.spans();
      expect(received.map((s) => [s.scope, s.name, s.parentSpanId !== ''])).toEqual([
        ['scope 0', 'chat model', true],
        ['scope 0', 'invoke_agent Scout', false],
        ['scope 1', 'chat model', true],
        ['scope 1', 'invoke_agent Scout', false],
      ]);
    },
  );

  it('a thread that dies fails the export it held; the next export starts another and arrives', async () => {
    const threads: Worker[] = [];
    const post = Worker.prototype.postMessage;
    vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (
      this: Worker,
      ...args: Parameters<Worker['postMessage']>
    ) {
      threads.push(this);
      return post.apply(this, args);
    });
    const exporter = new OffThreadExporter();

    const first = exported(exporter, finishedSpans(['lost']));
    await threads[0]?.terminate();
    const lost = await first;
    expect(lost.code).toBe(1);
    expect(lost.error?.message).toMatch(/thread stopped/);

    const second = await exported(exporter, finishedSpans(['delivered']));
    expect(second.code).toBe(0);
    expect(threads[1]).toBeDefined();
    expect(threads[1]).not.toBe(threads[0]);
    expect(receiver.spans().map((s) => s.name)).toEqual(['delivered']);

    await exporter.shutdown();
    const late = await exported(exporter, finishedSpans(['after']));
    expect(late.code).toBe(1);
    expect(receiver.spans().map((s) => s.name)).toEqual(['delivered']);
  });

  it('a thread that keeps dying before it answers is started again only after a back-off', async () => {
    let handed = 0;
    const post = Worker.prototype.postMessage;
    vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (
      this: Worker,
      ...args: Parameters<Worker['postMessage']>
    ) {
      handed += 1;
      post.apply(this, args);
      // Dies with the export it was handed, as a thread that cannot load its modules does.
      void this.terminate();
    });
    const exporter = new OffThreadExporter();
    const results: Result[] = [];
    for (let i = 0; i < 4; i++) results.push(await exported(exporter, finishedSpans([`try ${i}`])));
    expect(results.map((r) => r.code)).toEqual([1, 1, 1, 1]);
    // The first death is replaced at once; after the second, exports fail without a thread.
    expect(handed).toBe(2);
    expect(results[2]?.error?.message).toMatch(/restarts later/);

    vi.restoreAllMocks();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const recovered = await exported(exporter, finishedSpans(['after the back-off']));
    expect(recovered.code).toBe(0);
    expect(receiver.spans().map((s) => s.name)).toEqual(['after the back-off']);
    await exporter.shutdown();
  });

  it("reports a refused export as failed, with the endpoint's HTTP status", async () => {
    receiver.refuseWith = 400;
    const exporter = new OffThreadExporter();
    const refused = await exported(exporter, finishedSpans(['refused']));
    await exporter.shutdown();
    expect(refused.code).toBe(1);
    expect(refused.error).toMatchObject({ code: 400 });
    expect(receiver.spans()).toEqual([]);
  });
});
