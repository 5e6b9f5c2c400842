/**
 * The OTLP/HTTP span exporter, run on a worker thread of its own: the spans are encoded there by the
 * official serializer (protobuf, or JSON with OTEL_EXPORTER_OTLP_PROTOCOL=http/json) and sent with
 * the official exporter's own transport (otlp-exporter-base: endpoint, headers, time limit,
 * compression and retries read from the same OTEL_EXPORTER_OTLP_* variables, answers decoded the
 * same way). The main thread hands over each finished span's fields as plain data (`spanRecord`);
 * the thread rebuilds what the serializer reads of a span, so the bytes are the serializer's own for
 * the SDK's spans (test/ops/off-thread-exporter.test.ts compares them).
 *
 * Why a thread for the requests: Node's HTTP client is one body of JavaScript shared by every
 * request of the process, and V8 optimises it for the shapes of objects it has seen. Scout's model,
 * search and Slack requests all look alike; the exporter's (its own agent, options, a byte body) do
 * not. Its first export deoptimised the HTTP client all through (`_http_outgoing`, `_http_client`,
 * `net`, writable streams: 100 "wrong map" deoptimisations against 34, `--log-deopt`, scenario 17),
 * and every model and Slack request after it ran on the slower code that sees both.
 *
 * Why the encoding there too: the serializer builds a tree of small objects for every span and
 * attribute, and protobufjs an object for every field it writes, all garbage in the main heap beside
 * fifty turns in flight. Timed in a running bot (scenario 17, wall time), an export took 24–37 µs a
 * span on the main thread while it encoded there, and 6–20 µs a span now that the main thread only
 * copies the fields (docs/performance.md, "Issue 29 on an Intel Xeon machine: tracing's code timed
 * where it runs"). The thread's heap holds next to nothing, so its garbage costs next to nothing.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { type ExportResult, FAILED, SUCCESS } from './export-reporter.js';

/** The sender's heap: it holds a few encoded batches at most (the transport's queue is bounded). */
const SENDER_HEAP_MB = 64;
/**
 * A thread that died is replaced at the next export; one that died again before any export got an
 * answer through it (a module missing from an image, a heap too small) is not started again for this
 * long, doubling up to MAX_BACKOFF_MS, so a thread that cannot run is not started every 5 s for ever.
 */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;

/**
 * The worker's code, plain CommonJS so that it runs the same under tsx, vitest, tsc output and the
 * bundle; the packages come by absolute path (resolved here), whatever the working directory.
 */
const SENDER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createOtlpHttpExportDelegate, convertLegacyHttpOptions } = require(workerData.exporterBase);
const transformer = require(workerData.transformer);
const official = workerData.json ? transformer.JsonTraceSerializer : transformer.ProtobufTraceSerializer;

const traceState = (text) => (text === undefined ? undefined : { serialize: () => text });
// What the serializer reads of a span (ReadableSpan), from the fields spanRecord sent. The
// serializer groups spans by their resource object: the batch's resources, one object each.
function readable(batch) {
  return batch.spans.map((s) => {
    const context = { traceId: s.traceId, spanId: s.spanId, traceFlags: s.traceFlags, traceState: traceState(s.traceState) };
    return {
      name: s.name,
      kind: s.kind,
      spanContext: () => context,
      parentSpanContext: s.parent,
      startTime: s.startTime,
      endTime: s.endTime,
      status: s.status,
      attributes: s.attributes,
      links: s.links.map((l) => ({ ...l, context: { ...l.context, traceState: traceState(l.context.traceState) } })),
      events: s.events,
      resource: batch.resources[s.resource],
      instrumentationScope: batch.scopes[s.scope],
      droppedAttributesCount: s.droppedAttributesCount,
      droppedEventsCount: s.droppedEventsCount,
      droppedLinksCount: s.droppedLinksCount,
    };
  });
}
// The official exporter's delegate, as OTLPTraceExporter builds it.
const delegate = createOtlpHttpExportDelegate(
  convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': workerData.contentType }),
  { serializeRequest: (batch) => official.serializeRequest(readable(batch)), deserializeResponse: (data) => official.deserializeResponse(data) },
  'otlp_http_span_exporter',
  { name: 'span', countItems: (batch) => batch.spans.length },
  undefined,
);
const answer = (id, code, error) =>
  parentPort.postMessage({
    t: 'result',
    id,
    code,
    // The error's kind, status and message (the transport's own words, e.g. "Not Found"), no body.
    error: error ? { name: error.name, message: String(error.message), code: error.code } : undefined,
  });
parentPort.on('message', (message) => {
  if (message.t === 'export') {
    try {
      delegate.export(message.batch, (result) => answer(message.id, result.code, result.error));
    } catch (err) {
      // The spans could not be encoded: that export fails, the thread goes on.
      answer(message.id, 1, err instanceof Error ? err : new Error('the spans could not be encoded'));
    }
  } else if (message.t === 'shutdown') {
    delegate.shutdown().finally(() => parentPort.postMessage({ t: 'closed' }));
  }
});
`;

type SenderMessage = { t: 'result'; id: number; code: number; error?: SenderError } | { t: 'closed' };
/** An export's failure as the thread reports it: kind, words and status or errno, never a body. */
interface SenderError {
  name: string;
  message: string;
  code?: number | string;
}

function senderData(json: boolean) {
  const require = createRequire(import.meta.url);
  return {
    exporterBase: require.resolve('@opentelemetry/otlp-exporter-base/node-http'),
    transformer: require.resolve('@opentelemetry/otlp-transformer'),
    json,
    contentType: json ? 'application/json' : 'application/x-protobuf',
  };
}

/**
 * What the thread's HTTP client reads from the environment: the OTEL_ variables and Node's proxy
 * settings (NODE_USE_ENV_PROXY on Node 24). Not the rest, so no platform or model key is copied there.
 */
function senderEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env))
    if (/^(OTEL_|NODE_USE_ENV_PROXY$|(HTTPS?|NO)_PROXY$)/i.test(name)) out[name] = value;
  return out;
}

function exportError(error: SenderError): Error {
  return Object.assign(
    new Error(error.message),
    { name: error.name },
    error.code ? { code: error.code } : {},
  );
}

type TraceStateText = string | undefined;

/**
 * A finished span's fields as plain data, which a message can carry (a span itself holds its
 * processor, and through it this exporter). Only references to what the span already holds, and
 * the trace states as their text.
 */
function spanRecord(span: ReadableSpan, resource: number, scope: number) {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  return {
    name: span.name,
    kind: span.kind,
    traceId: context.traceId,
    spanId: context.spanId,
    traceFlags: context.traceFlags,
    traceState: context.traceState?.serialize() as TraceStateText,
    parent: parent
      ? { traceId: parent.traceId, spanId: parent.spanId, isRemote: parent.isRemote }
      : undefined,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: span.attributes,
    events: span.events,
    links: span.links.map((link) => ({
      attributes: link.attributes,
      droppedAttributesCount: link.droppedAttributesCount,
      context: {
        traceId: link.context.traceId,
        spanId: link.context.spanId,
        traceFlags: link.context.traceFlags,
        isRemote: link.context.isRemote,
        traceState: link.context.traceState?.serialize() as TraceStateText,
      },
    })),
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
    resource,
    scope,
  };
}

/** The batch as the thread takes it: each resource and instrumentation scope once, spans by index. */
function batchOf(spans: ReadableSpan[]) {
  const resources = new Map<Resource, number>();
  const scopes = new Map<ReadableSpan['instrumentationScope'], number>();
  const indexOf = <K>(map: Map<K, number>, key: K) => {
    const known = map.get(key);
    if (known !== undefined) return known;
    map.set(key, map.size);
    return map.size - 1;
  };
  const records = spans.map((span) =>
    spanRecord(span, indexOf(resources, span.resource), indexOf(scopes, span.instrumentationScope)),
  );
  return {
    spans: records,
    resources: [...resources.keys()].map((r) => ({ attributes: r.attributes, schemaUrl: r.schemaUrl })),
    scopes: [...scopes.keys()].map((s) => ({ name: s.name, version: s.version, schemaUrl: s.schemaUrl })),
  };
}

export class OffThreadExporter implements SpanExporter {
  readonly #data: ReturnType<typeof senderData>;
  /** The variables as they were when tracing started. */
  readonly #env = senderEnv(process.env);
  #worker: Worker | undefined;
  readonly #pending = new Map<number, (result: ExportResult) => void>();
  /** forceFlush callers, each with the exports it waits for. */
  #flushes: Array<{ ids: Set<number>; resolve: () => void }> = [];
  #nextId = 0;
  #closed = false;
  /** Threads in a row that died before an export got an answer through them. */
  #failedThreads = 0;
  #restartAt = 0;

  constructor(protocol?: string) {
    this.#data = senderData(protocol === 'http/json');
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    if (this.#closed) {
      done({ code: FAILED, error: new Error('the trace exporter is shut down') });
      return;
    }
    // Spans dropped while the thread waits to restart are not copied for nothing.
    if (Date.now() < this.#restartAt) {
      done({ code: FAILED, error: new Error('the trace export thread failed again: it restarts later') });
      return;
    }
    const batch = batchOf(spans);
    const id = ++this.#nextId;
    this.#pending.set(id, done);
    const worker = this.#sender();
    // While an export is on its way the thread keeps the process alive, as its socket would.
    worker.ref();
    worker.postMessage({ t: 'export', id, batch });
  }

  /** Resolves once every export handed over so far has its result (later ones are not waited for). */
  forceFlush(): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#flushes.push({ ids: new Set(this.#pending.keys()), resolve }));
  }

  /** Waits for the exports under way (the caller bounds the wait), then stops the thread. */
  async shutdown(): Promise<void> {
    this.#closed = true;
    await this.forceFlush();
    const worker = this.#worker;
    if (!worker) return;
    // Held until the thread has closed: with nothing else alive, the process would otherwise end
    // right here, before the code after shutdown (an exit code, closing the store) runs.
    worker.ref();
    await new Promise<void>((resolve) => {
      // Not `once`: any other message first would take the listener and leave only 'exit' to end this.
      worker.on('message', (message: SenderMessage) => message.t === 'closed' && resolve());
      worker.once('exit', () => resolve());
      worker.postMessage({ t: 'shutdown' });
    });
    this.close();
  }

  /** Stops the thread now: exports still under way fail (shutdown's bound ran out). */
  close(): void {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    this.#settleAll(new Error('the trace exporter was stopped'));
    void worker?.terminate();
  }

  #sender(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(SENDER_SOURCE, {
      eval: true,
      workerData: this.#data,
      env: this.#env,
      resourceLimits: { maxOldGenerationSizeMb: SENDER_HEAP_MB },
    });
    let answered = false;
    worker.on('message', (message: SenderMessage) => {
      if (message.t !== 'result') return;
      answered = true;
      this.#failedThreads = 0;
      this.#settle(message.id, message);
    });
    // A thread that died (out of memory, a module missing) fails what it held; the next export
    // starts another, after a back-off when threads keep dying before they answer.
    const gone = (reason: string) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      if (!answered) {
        this.#failedThreads += 1;
        if (this.#failedThreads >= 2)
          this.#restartAt =
            Date.now() + Math.min(FIRST_BACKOFF_MS * 2 ** (this.#failedThreads - 2), MAX_BACKOFF_MS);
      }
      this.#settleAll(new Error(reason));
    };
    worker.on('error', (err: Error & { code?: string }) =>
      gone(`the trace export thread failed: ${err.name}${err.code ? ` ${err.code}` : ''}: ${err.message}`),
    );
    worker.on('exit', (code) => gone(`the trace export thread stopped (exit code ${code})`));
    // Unref'd after the listeners (adding a 'message' listener refs the thread again): an idle
    // thread never keeps the process alive.
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  #settle(id: number, result: { code: number; error?: SenderError }): void {
    const done = this.#pending.get(id);
    if (!done) return;
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker?.unref();
    done(
      result.code === SUCCESS
        ? { code: SUCCESS }
        : { code: FAILED, ...(result.error ? { error: exportError(result.error) } : {}) },
    );
    this.#flushes = this.#flushes.filter((flush) => {
      flush.ids.delete(id);
      if (flush.ids.size > 0) return true;
      flush.resolve();
      return false;
    });
  }

  #settleAll(error: Error): void {
    for (const id of [...this.#pending.keys()])
      this.#settle(id, { code: FAILED, error: { name: error.name, message: error.message } });
  }
}
