/**
 * The span exporter's thread (src/ops/tracing/off-thread-exporter.ts), driven as the batch processor
 * drives it: `export(spans, done)`, then `shutdown()`. A thread that dies fails the export it held,
 * and the next export starts a new thread that delivers; threads that keep dying are started again
 * only after a back-off; after shutdown, exports fail at once.
 */
import { Worker } from 'node:worker_threads';
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
