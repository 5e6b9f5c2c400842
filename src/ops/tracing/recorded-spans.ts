/**
 * Spans recorded on the main thread as plain data, and made by the SDK on the trace thread
 * (trace-thread.ts) once they have ended: a span here is a record of what was done to it — name,
 * kind, ids, parent, times, attributes, events, links, statuses — sent to the thread when it ends.
 * The thread replays each record into the SDK's tracer (the same calls, the same times, the same
 * ids), so what its batch processor and the official exporter receive is what they would have
 * received had the SDK run here (test/ops/trace-thread.test.ts compares the bytes).
 *
 * Why: the SDK's span code runs about ten times in a turn of tens of milliseconds, so on the main
 * thread it never stays in the CPU's caches (a `startSpan` took 25–29 µs there, 7.5–9 µs right after
 * another, docs/performance.md), and every SDK span is a large object that lives on the main heap
 * until its export. On the thread the spans are made one after another, warm, in a heap that holds
 * nothing else.
 *
 * Sampling is decided here, as each span starts, by the sampler the SDK builds from
 * OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG: a turn the sampler leaves out is known at once
 * and runs untraced (trace-turn.ts). The ids are drawn here too, because log lines carry them.
 */
import {
  type Context,
  context as contextApi,
  type Exception,
  type HrTime,
  type Link,
  SamplingDecision,
  type Sampler,
  type Span,
  type SpanAttributes,
  type SpanAttributeValue,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  TraceFlags,
  type Tracer,
  type TraceState,
  trace,
} from '@opentelemetry/api';
import type { SpanIds } from './span-ids.js';

/** What Scout's tracers use of a tracer. */
export type SpanStarter = Pick<Tracer, 'startSpan'>;

/** A moment: the main thread's `performance.now()`, or an HrTime a caller gave. */
export type Stamp = number | HrTime;

export interface EventRecord {
  name: string;
  time: Stamp;
  attributes?: SpanAttributes;
  /** Set for `recordException`: the exception's text or its fields (the SDK reads these). */
  exception?: string | { name?: string; message?: string; code?: string | number; stack?: string };
}

export interface LinkRecord {
  context: { traceId: string; spanId: string; traceFlags: number; isRemote?: boolean; traceState?: string };
  attributes?: SpanAttributes;
  droppedAttributesCount?: number;
}

/** An ended span, as a message carries it to the trace thread. */
export interface SpanRecord {
  name: string;
  kind: SpanKind;
  traceId: string;
  spanId: string;
  /** The parent's span id; none for a turn's root. */
  parent?: string;
  /** The trace state as its text (W3C `tracestate`), when the span has one. */
  traceState?: string;
  start: Stamp;
  end: Stamp;
  /** Every attribute set, the last value of each, in the order first set. */
  attributes: SpanAttributes;
  events?: EventRecord[];
  links?: LinkRecord[];
  /** Each `setStatus`, in order (the SDK decides which one holds: an OK is final). */
  statuses?: SpanStatus[];
}

/** A time given as such (not an attributes object): milliseconds, a Date, or [seconds, nanoseconds]. */
const isTime = (value: unknown): value is TimeInput =>
  typeof value === 'number' ||
  value instanceof Date ||
  (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number');

/** A caller's time as a stamp: numbers up to now are `performance.now()` readings, later ones epoch ms. */
function stampOf(time: TimeInput | undefined): Stamp {
  const now = performance.now();
  if (time === undefined) return now;
  if (typeof time === 'number') return time <= now ? time : time - performance.timeOrigin;
  if (time instanceof Date) return time.getTime() - performance.timeOrigin;
  return time;
}

/**
 * Copies the attributes a message can carry: functions and symbols cannot cross to the thread (and
 * the SDK would drop them), null and undefined are dropped as the SDK drops them.
 */
function copyAttributes(from: SpanAttributes | undefined, into: SpanAttributes): SpanAttributes {
  if (from) for (const key in from) setValue(into, key, from[key]);
  return into;
}

function setValue(into: SpanAttributes, key: string, value: unknown): void {
  if (value == null || typeof value === 'function' || typeof value === 'symbol') return;
  into[key] = value as SpanAttributeValue;
}

function linkRecord(link: Link): LinkRecord {
  const { traceId, spanId, traceFlags, isRemote, traceState } = link.context;
  return {
    context: {
      traceId,
      spanId,
      traceFlags,
      ...(isRemote !== undefined ? { isRemote } : {}),
      ...(traceState ? { traceState: traceState.serialize() } : {}),
    },
    ...(link.attributes ? { attributes: copyAttributes(link.attributes, {}) } : {}),
    ...(link.droppedAttributesCount ? { droppedAttributesCount: link.droppedAttributesCount } : {}),
  };
}

function exceptionRecord(exception: Exception): EventRecord['exception'] {
  if (typeof exception === 'string') return exception;
  const { name, message, code, stack } = exception;
  return {
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof message === 'string' ? { message } : {}),
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(typeof stack === 'string' ? { stack } : {}),
  };
}

/** `list` with `item` at its end (a new list when there was none). */
function append<T>(list: T[] | undefined, item: T): T[] {
  if (!list) return [item];
  list.push(item);
  return list;
}

/** Where recorded spans take their ids and go when they end. */
interface Recorder {
  ids: Pick<SpanIds, 'generateTraceId' | 'generateSpanId'>;
  send: (record: SpanRecord) => void;
}

/** A recording span: what is done to it is kept in its record, which is sent when it ends. */
class RecordedSpan implements Span {
  #ended = false;

  constructor(
    readonly record: Omit<SpanRecord, 'end'> & { end?: Stamp },
    readonly context: SpanContext,
    readonly recorder: Recorder,
  ) {}

  /**
   * A span under this one. Recorded without asking the sampler again: every sampler that
   * OTEL_TRACES_SAMPLER names decides a trace's spans as it decided its root (by the parent, or by
   * the trace id's ratio), and a turn's spans are made where its code runs cold, so each call saved
   * counts (docs/performance.md).
   */
  child(name: string, options: SpanOptions): RecordedSpan {
    const { record, context, recorder } = this;
    return recordedSpan(
      name,
      options,
      copyAttributes(options.attributes, {}),
      { traceId: record.traceId, spanId: recorder.ids.generateSpanId(), parent: record.spanId },
      context.traceState,
      recorder,
    );
  }

  spanContext(): SpanContext {
    return this.context;
  }
  setAttribute(key: string, value: SpanAttributeValue): this {
    if (!this.#ended && key.length > 0) setValue(this.record.attributes, key, value);
    return this;
  }
  setAttributes(attributes: SpanAttributes): this {
    if (!this.#ended) copyAttributes(attributes, this.record.attributes);
    return this;
  }
  addEvent(name: string, attributesOrTime?: SpanAttributes | TimeInput, time?: TimeInput): this {
    if (this.#ended) return this;
    const given = isTime(attributesOrTime);
    const attributes = given ? undefined : (attributesOrTime as SpanAttributes | undefined);
    this.record.events = append(this.record.events, {
      name,
      time: stampOf(given ? attributesOrTime : time),
      ...(attributes ? { attributes: copyAttributes(attributes, {}) } : {}),
    });
    return this;
  }
  addLink(link: Link): this {
    if (!this.#ended) this.record.links = append(this.record.links, linkRecord(link));
    return this;
  }
  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }
  setStatus(status: SpanStatus): this {
    if (!this.#ended)
      this.record.statuses = append(
        this.record.statuses,
        status.message === undefined ? { code: status.code } : { code: status.code, message: status.message },
      );
    return this;
  }
  updateName(name: string): this {
    if (!this.#ended) this.record.name = name;
    return this;
  }
  isRecording(): boolean {
    return !this.#ended;
  }
  recordException(exception: Exception, time?: TimeInput): void {
    if (this.#ended) return;
    this.record.events = append(this.record.events, {
      name: 'exception',
      time: stampOf(time),
      exception: exceptionRecord(exception),
    });
  }
  end(endTime?: TimeInput): void {
    if (this.#ended) return;
    this.#ended = true;
    this.record.end = stampOf(endTime);
    this.recorder.send(this.record as SpanRecord);
  }
}

/** A sampled span's record and context, its start now (or when `options` says). */
function recordedSpan(
  name: string,
  options: SpanOptions,
  attributes: SpanAttributes,
  ids: { traceId: string; spanId: string; parent?: string },
  traceState: TraceState | undefined,
  recorder: Recorder,
): RecordedSpan {
  const { traceId, spanId } = ids;
  const links = options.links;
  return new RecordedSpan(
    {
      name,
      kind: options.kind ?? SpanKind.INTERNAL,
      ...ids,
      ...(traceState ? { traceState: traceState.serialize() } : {}),
      start: stampOf(options.startTime),
      attributes,
      ...(links && links.length > 0 ? { links: links.map(linkRecord) } : {}),
    },
    { traceId, spanId, traceFlags: TraceFlags.SAMPLED, ...(traceState ? { traceState } : {}) },
    recorder,
  );
}

/**
 * A tracer whose spans are recorded here and sent, as each ends, to `send` (the trace thread).
 * `sampler` decides each turn's root as the SDK's tracer would; `ids` draws the trace and span ids.
 */
export function recordingTracer(
  sampler: Sampler,
  ids: Pick<SpanIds, 'generateTraceId' | 'generateSpanId'>,
  send: (record: SpanRecord) => void,
): SpanStarter {
  const recorder: Recorder = { ids, send };
  return {
    startSpan(name: string, options: SpanOptions = {}, context: Context = contextApi.active()): Span {
      // A root asked for: the sampler sees the context without its span, as the SDK's does.
      if (options.root) context = trace.deleteSpan(context);
      else {
        const parentSpan = trace.getSpan(context);
        if (parentSpan instanceof RecordedSpan) return parentSpan.child(name, options);
      }
      const parent = trace.getSpanContext(context);
      const child = parent !== undefined && trace.isSpanContextValid(parent);
      const traceId = child ? parent.traceId : ids.generateTraceId();
      const spanId = ids.generateSpanId();
      const attributes = copyAttributes(options.attributes, {});
      const sampled = sampler.shouldSample(
        context,
        traceId,
        name,
        options.kind ?? SpanKind.INTERNAL,
        attributes,
        options.links ?? [],
      );
      const traceState = sampled.traceState ?? (child ? parent.traceState : undefined);
      // The SDK's batch processor exports sampled spans only: anything else records nothing here.
      if (sampled.decision !== SamplingDecision.RECORD_AND_SAMPLED)
        return trace.wrapSpanContext({
          traceId,
          spanId,
          traceFlags: TraceFlags.NONE,
          ...(traceState ? { traceState } : {}),
        });
      copyAttributes(sampled.attributes, attributes);
      return recordedSpan(
        name,
        options,
        attributes,
        { traceId, spanId, ...(child ? { parent: parent.spanId } : {}) },
        traceState,
        recorder,
      );
    },
  };
}
