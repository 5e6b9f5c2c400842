/**
 * The main thread's side of tracing (src/ops/tracing/recorded-spans.ts), driven as the turn's
 * tracers drive it: `startSpan` under the turn's context, attributes, a failure, `end`. Each span is
 * sent once, when it ends, with what was done to it before; the sampler the SDK builds from
 * OTEL_TRACES_SAMPLER decides, at once, which turns are recorded; log lines can carry the ids.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { recordingTracer, type SpanRecord } from '../../src/ops/tracing/recorded-spans.js';
import { SpanIds } from '../../src/ops/tracing/span-ids.js';

function setup(sampler: Sampler = new ParentBasedSampler({ root: new AlwaysOnSampler() })) {
  const sent: SpanRecord[] = [];
  const tracer = recordingTracer(sampler, new SpanIds(), (span) => sent.push(structuredClone(span)));
  return { sent, tracer };
}

describe('spans recorded on the main thread', () => {
  it('are sent once, when they end, with their parent, times and everything set on them', async () => {
    const { sent, tracer } = setup();
    const before = performance.now();
    const root = tracer.startSpan(
      'invoke_agent Scout',
      { attributes: { 'scout.surface': 'slack' } },
      ROOT_CONTEXT,
    );
    const turn = trace.setSpan(ROOT_CONTEXT, root);
    const tool = tracer.startSpan('execute_tool web_search', { kind: SpanKind.CLIENT }, turn);
    const search = tracer.startSpan('search tavily', {}, trace.setSpan(turn, tool));
    await new Promise((resolve) => setTimeout(resolve, 30));
    search.setAttributes({ 'scout.search.results': 3, 'scout.search.cached': false });
    // What the SDK drops is not carried: null values, functions.
    search.setAttributes({ nothing: null as unknown as string, fn: (() => 1) as unknown as string });
    search.addEvent('retry', { attempt: 2 });
    search.setStatus({ code: SpanStatusCode.ERROR });
    search.setAttribute('error.type', 'rate_limited');
    expect(sent).toEqual([]);
    search.end();
    search.end();
    search.setAttribute('after.end', 1);
    tool.end();
    root.setAttribute('scout.outcome', 'answered');
    root.end();

    expect(sent.map((s) => s.name)).toEqual([
      'search tavily',
      'execute_tool web_search',
      'invoke_agent Scout',
    ]);
    const [s, t, r] = sent as [SpanRecord, SpanRecord, SpanRecord];
    expect(r.parent).toBeUndefined();
    expect(t.parent).toBe(r.spanId);
    expect(s.parent).toBe(t.spanId);
    expect(new Set([s.traceId, t.traceId])).toEqual(new Set([r.traceId]));
    // The ids a log line read as the span ran are the ones sent.
    expect(tool.spanContext().spanId).toBe(t.spanId);
    expect(t.kind).toBe(SpanKind.CLIENT);
    expect(s.attributes).toEqual({
      'scout.search.results': 3,
      'scout.search.cached': false,
      'error.type': 'rate_limited',
    });
    expect(r.attributes).toEqual({ 'scout.surface': 'slack', 'scout.outcome': 'answered' });
    expect(s.statuses).toEqual([{ code: SpanStatusCode.ERROR }]);
    expect(s.events).toMatchObject([{ name: 'retry', attributes: { attempt: 2 } }]);
    expect(s.start as number).toBeGreaterThanOrEqual(before);
    expect((s.end as number) - (s.start as number)).toBeGreaterThanOrEqual(29);
    expect(s.events?.[0]?.time as number).toBeGreaterThanOrEqual(s.start as number);
    expect(search.isRecording()).toBe(false);
  });

  it('a turn the sampler leaves out records nothing, and neither do its children', () => {
    const { sent, tracer } = setup(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    const root = tracer.startSpan('invoke_agent Scout', {}, ROOT_CONTEXT);
    expect(root.isRecording()).toBe(false);
    const child = tracer.startSpan('chat model', {}, trace.setSpan(ROOT_CONTEXT, root));
    expect(child.isRecording()).toBe(false);
    expect(child.spanContext().traceId).toBe(root.spanContext().traceId);
    child.end();
    root.end();
    expect(sent).toEqual([]);
  });

  it('decides by trace id as the ratio sampler does, about the share asked for', () => {
    const { sent, tracer } = setup(new TraceIdRatioBasedSampler(0.25));
    for (let i = 0; i < 2_000; i++) tracer.startSpan('turn', {}, ROOT_CONTEXT).end();
    expect(sent.length).toBeGreaterThan(400);
    expect(sent.length).toBeLessThan(600);
  });

  it('a span asked to be a root starts a trace of its own', () => {
    const { sent, tracer } = setup();
    const turn = tracer.startSpan('turn', {}, ROOT_CONTEXT);
    tracer.startSpan('detached', { root: true }, trace.setSpan(ROOT_CONTEXT, turn)).end();
    turn.end();
    expect(sent[0]?.parent).toBeUndefined();
    expect(sent[0]?.traceId).not.toBe(sent[1]?.traceId);
  });

  it('gives every turn its own trace, and ids that are valid and distinct', () => {
    const { sent, tracer } = setup();
    for (let i = 0; i < 300; i++) {
      const root = tracer.startSpan('turn', {}, ROOT_CONTEXT);
      tracer.startSpan('child', {}, trace.setSpan(ROOT_CONTEXT, root)).end();
      root.end();
    }
    const traces = new Set(sent.map((s) => s.traceId));
    const spans = new Set(sent.map((s) => s.spanId));
    expect(traces.size).toBe(300);
    expect(spans.size).toBe(600);
    for (const id of traces) expect(id).toMatch(/^(?!0+$)[0-9a-f]{32}$/);
    for (const id of spans) expect(id).toMatch(/^(?!0+$)[0-9a-f]{16}$/);
  });
});
