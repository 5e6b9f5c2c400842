/**
 * The trace thread: where the official SDK makes, batches and exports the spans the main thread
 * recorded (recorded-spans.ts; its code in trace-thread-source.ts). The batch schedule is kept here:
 * ended spans wait on this side for OTEL_BSP_SCHEDULE_DELAY (5 s by default; at once when POST_AT
 * wait) and go over in one message, which the thread makes into spans and exports at once. So the
 * thread wakes once an export, runs the SDK, the serializer and the request one after another while
 * they are warm, and its spans die young in its heap; a span reaches the endpoint when it would have
 * with the SDK's batch processor on this thread.
 *
 * Why a thread for the SDK and its requests: on the main thread the SDK's code ran cold at every
 * call and its spans lived in the main heap until exported (recorded-spans.ts). And Node's HTTP
 * client is one body of JavaScript shared by every request of the process, which V8 optimises for
 * the shapes of objects it has seen: the exporter's requests (its own agent, options, a byte body)
 * deoptimised it for every model and Slack request after the first export (`--log-deopt`, scenario
 * 17, docs/performance.md).
 *
 * A thread that dies loses the spans it held (logged through the reporter) and is replaced when the
 * next spans come; one that died again before it was ready (a module missing from an image, a heap
 * too small) is not started again for a while, doubling up to MAX_BACKOFF_MS, and spans ended in
 * the meantime are dropped and counted.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { ExportReporter } from './export-reporter.js';
import type { SpanRecord } from './recorded-spans.js';
import { TRACE_THREAD_SOURCE } from './trace-thread-source.js';

/** How long ended spans wait before they go to the thread: the batch processor's default schedule. */
export const POST_EVERY_MS = 5_000;
/** Spans sent at once however soon: the batch processor's default batch (OTEL_BSP_MAX_EXPORT_BATCH_SIZE). */
const POST_AT = 512;
/** The thread's heap: the batch processor's queue and an encoded batch or two. */
const THREAD_HEAP_MB = 64;
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;

type ThreadError = { name: string; message: string; code?: number | string };
type ThreadMessage =
  | { t: 'ready' | 'busy' | 'closed' }
  | { t: 'exported'; spans: number; idle: boolean; error?: ThreadError }
  | { t: 'unreadable'; spans: number; error?: ThreadError }
  | { t: 'flushed'; id: number };

function threadData(json: boolean) {
  const require = createRequire(import.meta.url);
  // @opentelemetry/core is the SDK's own dependency: resolved from where the SDK is.
  const sdk = require.resolve('@opentelemetry/sdk-trace-base');
  return {
    modules: {
      api: require.resolve('@opentelemetry/api'),
      core: createRequire(sdk).resolve('@opentelemetry/core'),
      sdk,
      resources: require.resolve('@opentelemetry/resources'),
      exporterBase: require.resolve('@opentelemetry/otlp-exporter-base/node-http'),
      transformer: require.resolve('@opentelemetry/otlp-transformer'),
    },
    json,
    contentType: json ? 'application/json' : 'application/x-protobuf',
    timeOrigin: performance.timeOrigin,
  };
}

/**
 * What the thread reads from the environment: the OTEL_ variables and Node's proxy settings
 * (NODE_USE_ENV_PROXY on Node 24). Not the rest, so no platform or model key is copied there.
 */
function threadEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env))
    if (/^(OTEL_|NODE_USE_ENV_PROXY$|(HTTPS?|NO)_PROXY$)/i.test(name)) out[name] = value;
  return out;
}

/** OTEL_BSP_SCHEDULE_DELAY, the batch processor's schedule, where it is set; POST_EVERY_MS otherwise. */
function postEvery(env: NodeJS.ProcessEnv): number {
  const schedule = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  return env.OTEL_BSP_SCHEDULE_DELAY?.trim() && Number.isFinite(schedule) && schedule >= 0
    ? schedule
    : POST_EVERY_MS;
}

const errorOf = (error: ThreadError | undefined, fallback: string): Error =>
  Object.assign(
    new Error(error?.message ?? fallback),
    error ? { name: error.name } : {},
    error?.code ? { code: error.code } : {},
  );

export class TraceThread {
  readonly #data: ReturnType<typeof threadData>;
  /** The variables as they were when tracing started. */
  readonly #env = threadEnv(process.env);
  readonly #postEvery = postEvery(this.#env);
  #worker: Worker | undefined;
  #waiting: SpanRecord[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** Spans handed to the current thread and not yet reported exported (lost if it dies). */
  #held = 0;
  #exporting = false;
  /** Flushes and shutdowns waiting for the thread's answer, by id. */
  readonly #answers = new Map<number, () => void>();
  #nextId = 0;
  #closed = false;
  /** Threads in a row that died before they were ready. */
  #failedStarts = 0;
  #restartAt = 0;

  constructor(
    protocol: string | undefined,
    private readonly reporter: Pick<ExportReporter, 'exported' | 'lost'>,
  ) {
    this.#data = threadData(protocol === 'http/json');
  }

  /**
   * An ended span, for the thread to make and export. At most POST_AT wait here: then they go at
   * once, and the thread's batch processor bounds its own queue (OTEL_BSP_MAX_QUEUE_SIZE).
   */
  send(record: SpanRecord): void {
    if (this.#closed) return;
    this.#waiting.push(record);
    if (this.#waiting.length >= POST_AT) this.#post();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => this.#post(), this.#postEvery);
      this.#timer.unref();
    }
  }

  /** Resolves once the thread has exported every span sent so far (or has died). */
  flush(): Promise<void> {
    this.#post();
    return this.#ask('flush');
  }

  /** Exports what is waiting and stops the thread (the caller bounds the wait). */
  async shutdown(): Promise<void> {
    this.#post();
    this.#closed = true;
    await this.#ask('shutdown');
    this.close();
  }

  /** Stops the thread now: spans it still held are lost. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#waiting = [];
    const worker = this.#worker;
    this.#worker = undefined;
    this.#answerAll();
    void worker?.terminate();
  }

  #post(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const spans = this.#waiting;
    if (spans.length === 0) return;
    this.#waiting = [];
    if (Date.now() < this.#restartAt) {
      this.reporter.lost(spans.length, new Error('the trace thread failed again: it restarts later'));
      return;
    }
    this.#held += spans.length;
    this.#thread().postMessage({ t: 'spans', spans });
  }

  /** Sends `t` with an id and waits for the thread's answer (or its end). */
  #ask(t: 'flush' | 'shutdown'): Promise<void> {
    const worker = this.#worker;
    if (!worker) return Promise.resolve();
    const id = ++this.#nextId;
    return new Promise((resolve) => {
      this.#answers.set(id, resolve);
      this.#updateRef();
      worker.postMessage({ t, id });
    });
  }

  #answer(id: number): void {
    this.#answers.get(id)?.();
    this.#answers.delete(id);
    this.#updateRef();
  }

  #answerAll(): void {
    for (const id of [...this.#answers.keys()]) this.#answer(id);
  }

  /** The thread keeps the process alive while it exports or is waited for, as a socket would. */
  #updateRef(): void {
    if (this.#exporting || this.#answers.size > 0) this.#worker?.ref();
    else this.#worker?.unref();
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(TRACE_THREAD_SOURCE, {
      eval: true,
      workerData: this.#data,
      env: this.#env,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    let ready = false;
    worker.on('message', (message: ThreadMessage) => {
      switch (message.t) {
        case 'ready':
          ready = true;
          this.#failedStarts = 0;
          break;
        case 'busy':
          this.#exporting = true;
          this.#updateRef();
          break;
        case 'exported':
          this.#held = Math.max(0, this.#held - message.spans);
          this.#exporting = !message.idle;
          this.#updateRef();
          this.reporter.exported(
            message.spans,
            message.error ? errorOf(message.error, 'the trace export failed') : undefined,
          );
          break;
        case 'unreadable':
          this.#held = Math.max(0, this.#held - message.spans);
          this.reporter.lost(message.spans, errorOf(message.error, 'spans the SDK could not make'));
          break;
        case 'flushed':
          this.#answer(message.id);
          break;
        case 'closed':
          this.#answerAll();
          break;
      }
    });
    // A thread that died (out of memory, a module missing) loses what it held; the next spans start
    // another, after a back-off when threads keep dying before they are ready.
    const gone = (reason: string) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#exporting = false;
      if (!ready) {
        this.#failedStarts += 1;
        if (this.#failedStarts >= 2)
          this.#restartAt =
            Date.now() + Math.min(FIRST_BACKOFF_MS * 2 ** (this.#failedStarts - 2), MAX_BACKOFF_MS);
      }
      if (this.#held > 0) this.reporter.lost(this.#held, new Error(reason));
      this.#held = 0;
      this.#answerAll();
    };
    worker.on('error', (err: Error & { code?: string }) =>
      gone(`the trace thread failed: ${err.name}${err.code ? ` ${err.code}` : ''}: ${err.message}`),
    );
    worker.on('exit', (code) => gone(`the trace thread stopped (exit code ${code})`));
    // Unref'd after the listeners (adding a 'message' listener refs the thread again): an idle
    // thread never keeps the process alive.
    worker.unref();
    this.#worker = worker;
    return worker;
  }
}
