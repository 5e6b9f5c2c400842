/**
 * A turn's child spans are recorded while the turn runs and made by the SDK when its root ends
 * (src/ops/tracing/deferred-spans.ts), driven as the turn's tracers drive it: `startSpan` under the
 * turn's context, attributes, a failure, an event, `end`. What the SDK's processor receives must be
 * what it would have received had each span been made as it happened: the times they happened, the
 * parents, the ids that log lines carried, everything set on them.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { deferChildSpans } from '../../src/ops/tracing/deferred-spans.js';
import { SpanIds } from '../../src/ops/tracing/span-ids.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (time: [number, number]) => time[0] * 1e3 + time[1] / 1e6;

function setup(options: { sampledOut?: boolean } = {}) {
  const exporter = new InMemorySpanExporter();
  const ids = new SpanIds();
  const provider = new BasicTracerProvider({
    idGenerator: ids,
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    ...(options.sampledOut ? { sampler: new AlwaysOffSampler() } : {}),
  });
  const tracer = deferChildSpans(provider.getTracer('scout'), ids);
  const names = () => exporter.getFinishedSpans().map((s) => s.name);
  const named = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name) as ReadableSpan;
  return { exporter, tracer, names, named };
}

describe("a turn's deferred child spans", () => {
  it('reach the SDK when the turn ends, with the times, parents, ids and attributes they had', async () => {
    const { tracer, names, named } = setup();
    const turnStart = Date.now();
    const root = tracer.startSpan('invoke_agent Scout', { kind: SpanKind.INTERNAL }, ROOT_CONTEXT);
    const turn = trace.setSpan(ROOT_CONTEXT, root);

    const tool = tracer.startSpan(
      'execute_tool web_search',
      { attributes: { 'gen_ai.tool.name': 'web_search' } },
      turn,
    );
    expect(tool.isRecording()).toBe(true);
    const logged = tool.spanContext();
    const search = tracer.startSpan(
      'search tavily',
      { kind: SpanKind.CLIENT, attributes: { 'scout.search.provider': 'tavily' } },
      trace.setSpan(turn, tool),
    );
    await sleep(40);
    search.setAttributes({ 'scout.search.results': 3 });
    search.addEvent('retry', { attempt: 2 });
    search.setStatus({ code: SpanStatusCode.ERROR });
    search.setAttribute('error.type', 'rate_limited');
    search.end();
    tool.end();
    // Set after its end: ignored, as the SDK ignores it.
    tool.setAttribute('late', true);
    expect(tool.isRecording()).toBe(false);
    const toolEnded = Date.now();
    await sleep(40);

    expect(names()).toEqual([]);
    root.end();
    // Children in the order they ended, then the turn.
    expect(names()).toEqual(['search tavily', 'execute_tool web_search', 'invoke_agent Scout']);

    const [madeTool, madeSearch, madeRoot] = [
      named('execute_tool web_search'),
      named('search tavily'),
      named('invoke_agent Scout'),
    ];
    // The id the turn's log lines carried is the span's.
    expect(madeTool.spanContext()).toMatchObject({ traceId: logged.traceId, spanId: logged.spanId });
    expect(madeTool.spanContext().traceId).toBe(madeRoot.spanContext().traceId);
    expect(madeTool.parentSpanContext?.spanId).toBe(madeRoot.spanContext().spanId);
    expect(madeSearch.parentSpanContext?.spanId).toBe(madeTool.spanContext().spanId);
    expect(madeTool.attributes).toEqual({ 'gen_ai.tool.name': 'web_search' });
    expect(madeSearch.kind).toBe(SpanKind.CLIENT);
    expect(madeSearch.attributes).toEqual({
      'scout.search.provider': 'tavily',
      'scout.search.results': 3,
      'error.type': 'rate_limited',
    });
    expect(madeSearch.status.code).toBe(SpanStatusCode.ERROR);
    expect(madeSearch.events.map((e) => [e.name, e.attributes])).toEqual([['retry', { attempt: 2 }]]);
    // When it happened, not when the turn ended: the search's 40 ms, the tool's end before the wait.
    expect(ms(madeSearch.duration)).toBeGreaterThanOrEqual(35);
    expect(ms(madeSearch.startTime)).toBeGreaterThanOrEqual(turnStart - 2);
    expect(ms(madeTool.endTime)).toBeLessThanOrEqual(toolEnded + 2);
    expect(ms(madeRoot.endTime) - ms(madeTool.endTime)).toBeGreaterThanOrEqual(35);
    expect(ms(madeSearch.events[0]!.time)).toBeLessThanOrEqual(toolEnded + 2);
  });

  it("a child still running at the turn's end arrives when it ends; one started after goes at once", async () => {
    const { tracer, names, named } = setup();
    const root = tracer.startSpan('invoke_agent Scout', {}, ROOT_CONTEXT);
    const turn = trace.setSpan(ROOT_CONTEXT, root);
    const slow = tracer.startSpan('execute_tool slow', {}, turn);
    slow.setAttribute('before', 1);
    root.end();
    expect(names()).toEqual(['invoke_agent Scout']);

    slow.setAttribute('after', 2);
    const late = tracer.startSpan('search late', {}, trace.setSpan(turn, slow));
    late.end();
    slow.end();
    expect(names()).toEqual(['invoke_agent Scout', 'search late', 'execute_tool slow']);
    expect(named('execute_tool slow').attributes).toEqual({ before: 1, after: 2 });
    expect(named('execute_tool slow').parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(named('search late').parentSpanContext?.spanId).toBe(slow.spanContext().spanId);
  });

  it('a turn the sampler leaves out records nothing, and its children are not kept', () => {
    const { tracer, exporter } = setup({ sampledOut: true });
    const root = tracer.startSpan('invoke_agent Scout', {}, ROOT_CONTEXT);
    expect(root.isRecording()).toBe(false);
    const child = tracer.startSpan('chat model', {}, trace.setSpan(ROOT_CONTEXT, root));
    expect(child.isRecording()).toBe(false);
    child.end();
    root.end();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('gives every turn its own trace, and ids that are valid and distinct', () => {
    const { tracer, exporter } = setup();
    for (let i = 0; i < 300; i++) {
      const root = tracer.startSpan('invoke_agent Scout', {}, ROOT_CONTEXT);
      tracer.startSpan('chat model', {}, trace.setSpan(ROOT_CONTEXT, root)).end();
      root.end();
    }
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(600);
    const traceIds = new Set(spans.map((s) => s.spanContext().traceId));
    const spanIds = new Set(spans.map((s) => s.spanContext().spanId));
    expect(traceIds.size).toBe(300);
    expect(spanIds.size).toBe(600);
    for (const id of traceIds) expect(id).toMatch(/^(?!0+$)[0-9a-f]{32}$/);
    for (const id of spanIds) expect(id).toMatch(/^(?!0+$)[0-9a-f]{16}$/);
  });
});
