/**
 * The OTLP/HTTP span exporter with its HTTP requests made on a worker thread of their own. The spans
 * are encoded here by the official serializer (protobuf, or JSON with OTEL_EXPORTER_OTLP_PROTOCOL=
 * http/json); the bytes go to the worker, which sends them with the official exporter's own
 * transport (otlp-exporter-base: endpoint, headers, time limit, compression and retries read from the
 * same OTEL_EXPORTER_OTLP_* variables, answers decoded the same way).
 *
 * Why a thread: Node's HTTP client is one body of JavaScript shared by every request of the process,
 * and V8 optimises it for the shapes of objects it has seen. Scout's model, search and Slack requests
 * all look alike; the exporter's (its own agent, options, a byte body) do not. Its first export
 * deoptimised the HTTP client all through (`_http_outgoing`, `_http_client`, `net`, writable
 * streams: 100 "wrong map" deoptimisations against 34, `--log-deopt`, scenario 17), and every model
 * and Slack request after it ran on the slower code that sees both. On its own thread the exporter
 * has an HTTP client of its own (docs/performance.md, "Issue 29 on an AMD EPYC (Zen 5) machine").
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
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
// The official exporter's delegate, as OTLPTraceExporter builds it, fed bytes already encoded.
const delegate = createOtlpHttpExportDelegate(
  convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': workerData.contentType }),
  { serializeRequest: (batch) => batch.bytes, deserializeResponse: (data) => official.deserializeResponse(data) },
  'otlp_http_span_exporter',
  { name: 'span', countItems: (batch) => batch.count },
  undefined,
);
parentPort.on('message', (message) => {
  if (message.t === 'export') {
    delegate.export({ bytes: message.bytes, count: message.count }, (result) => {
      const error = result.error;
      parentPort.postMessage({
        t: 'result',
        id: message.id,
        code: result.code,
        // The error's kind, status and message (the transport's own words, e.g. "Not Found"), no body.
        error: error ? { name: error.name, message: String(error.message), code: error.code } : undefined,
      });
    });
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

/** Moves an encoded batch to the thread without a copy when it owns its whole buffer (not Node's pool). */
function transferable(bytes: Uint8Array): ArrayBuffer[] {
  const buffer = bytes.buffer;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength
    ? [buffer]
    : [];
}

export class OffThreadExporter implements SpanExporter {
  readonly #serializer: typeof ProtobufTraceSerializer | typeof JsonTraceSerializer;
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
    const json = protocol === 'http/json';
    this.#serializer = json ? JsonTraceSerializer : ProtobufTraceSerializer;
    this.#data = senderData(json);
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    if (this.#closed) {
      done({ code: FAILED, error: new Error('the trace exporter is shut down') });
      return;
    }
    // Before encoding: spans dropped while the thread waits to restart are not encoded for nothing.
    if (Date.now() < this.#restartAt) {
      done({ code: FAILED, error: new Error('the trace export thread failed again: it restarts later') });
      return;
    }
    const bytes = this.#serializer.serializeRequest(spans);
    if (!bytes) {
      done({ code: FAILED, error: new Error('the spans could not be encoded') });
      return;
    }
    const id = ++this.#nextId;
    this.#pending.set(id, done);
    const worker = this.#sender();
    // While an export is on its way the thread keeps the process alive, as its socket would.
    worker.ref();
    worker.postMessage({ t: 'export', id, bytes, count: spans.length }, transferable(bytes));
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
