/**
 * The trace thread's code (trace-thread.ts starts it): the official SDK — a tracer provider with a
 * batch processor, the resource from OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES — and the
 * official OTLP/HTTP exporter's delegate and serializer (protobuf, or JSON), as OTLPTraceExporter
 * builds them, reading the same OTEL_EXPORTER_OTLP_* and OTEL_BSP_* variables. Each span record
 * the main thread sends (recorded-spans.ts) is replayed into the SDK's tracer: started with its ids,
 * parent, kind, attributes, links and start time, then its events and statuses, then ended at its
 * end time, and what came is exported at once (the main thread kept the batch schedule). The
 * sampling was decided on the main thread, so this thread's sampler keeps every span.
 *
 * Plain CommonJS, so that it runs the same under tsx, vitest, tsc output and the bundle; the
 * packages come by absolute path (resolved by the main thread), whatever the working directory.
 */
export const TRACE_THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const api = require(workerData.modules.api);
const core = require(workerData.modules.core);
const sdk = require(workerData.modules.sdk);
const resources = require(workerData.modules.resources);
const { createOtlpHttpExportDelegate, convertLegacyHttpOptions } = require(workerData.modules.exporterBase);
const transformer = require(workerData.modules.transformer);
const serializer = workerData.json ? transformer.JsonTraceSerializer : transformer.ProtobufTraceSerializer;

const post = (message) => parentPort.postMessage(message);
// An error as a message carries it: kind, the transport's own words (e.g. "Not Found"), status or
// errno; never a body.
const errorOf = (error) =>
  error ? { name: error.name, message: String(error.message), code: error.code } : undefined;

// The official exporter's delegate, as OTLPTraceExporter builds it, watched: the main thread logs
// failures and keeps the process alive while an export is under way.
const delegate = createOtlpHttpExportDelegate(
  convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': workerData.contentType }),
  serializer,
  'otlp_http_span_exporter',
  { name: 'span', countItems: (spans) => spans.length },
  undefined,
);
let exporting = 0;
const exporter = {
  export(spans, done) {
    if (exporting++ === 0) post({ t: 'busy' });
    const finish = (result) => {
      exporting -= 1;
      post({ t: 'exported', spans: spans.length, idle: exporting === 0, error: result.code === 0 ? undefined : errorOf(result.error) });
      done(result);
    };
    try {
      delegate.export(spans, finish);
    } catch (err) {
      // The spans could not be encoded: that export fails, the thread goes on.
      finish({ code: 1, error: err instanceof Error ? err : new Error('the spans could not be encoded') });
    }
  },
  forceFlush: () => delegate.forceFlush(),
  shutdown: () => delegate.shutdown(),
};

// The ids and trace state of the span being replayed, handed to the SDK as its id generator's and
// its sampler's answers.
let current;
const ids = { generateTraceId: () => current.traceId, generateSpanId: () => current.spanId };
const sampler = {
  shouldSample: () => ({
    decision: api.SamplingDecision.RECORD_AND_SAMPLED,
    traceState: current.traceState === undefined ? undefined : api.createTraceState(current.traceState),
  }),
  toString: () => 'SampledOnTheMainThread',
};
const resource = resources
  .defaultResource()
  .merge(resources.resourceFromAttributes({ 'service.name': 'scout' }))
  .merge(resources.detectResources({ detectors: [resources.envDetector] }));
const provider = new sdk.BasicTracerProvider({
  resource,
  idGenerator: ids,
  sampler,
  spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
});
const tracer = provider.getTracer('scout');

// A stamp is the main thread's performance.now() (its time origin came with the thread) or an HrTime.
const origin = core.millisToHrTime(workerData.timeOrigin);
const time = (stamp) => (typeof stamp === 'number' ? core.addHrTimes(origin, core.millisToHrTime(stamp)) : stamp);
const traceState = (text) => (text === undefined ? undefined : api.createTraceState(text));
const link = (l) => ({ ...l, context: { ...l.context, traceState: traceState(l.context.traceState) } });

function replay(record) {
  const parent =
    record.parent === undefined
      ? api.ROOT_CONTEXT
      : api.trace.setSpanContext(api.ROOT_CONTEXT, {
          traceId: record.traceId,
          spanId: record.parent,
          traceFlags: api.TraceFlags.SAMPLED,
          traceState: traceState(record.traceState),
        });
  current = record;
  let span;
  try {
    span = tracer.startSpan(
      record.name,
      {
        kind: record.kind,
        attributes: record.attributes,
        links: record.links ? record.links.map(link) : undefined,
        startTime: time(record.start),
      },
      parent,
    );
  } finally {
    current = undefined;
  }
  for (const event of record.events ?? []) {
    if (event.exception !== undefined) span.recordException(event.exception, time(event.time));
    else span.addEvent(event.name, event.attributes, time(event.time));
  }
  for (const status of record.statuses ?? []) span.setStatus(status);
  span.end(time(record.end));
}

// A failed export is reported by the exporter above; the SDK's promise rejects as well, and a
// rejection nobody handles would end the thread (and lose the spans it holds).
const settled = (promise) => promise.then(() => undefined, () => undefined);
// The export the last spans started (settled: never rejects).
let exported = Promise.resolve();
parentPort.on('message', (message) => {
  if (message.t === 'spans') {
    let unreadable = 0;
    let error;
    for (const record of message.spans) {
      try {
        replay(record);
      } catch (err) {
        unreadable += 1;
        error = err;
      }
    }
    if (unreadable > 0) post({ t: 'unreadable', spans: unreadable, error: errorOf(error) });
    // The main thread kept the batch schedule: what came is exported now, while it is young.
    exported = settled(provider.forceFlush());
  } else if (message.t === 'flush') {
    // A flush does not wait for an export another flush started: wait for that one first.
    exported.then(() => settled(provider.forceFlush())).then(() => post({ t: 'flushed', id: message.id }));
  } else if (message.t === 'shutdown') {
    exported.then(() => settled(provider.shutdown())).then(() => post({ t: 'closed' }));
  }
});
post({ t: 'ready' });
`;
