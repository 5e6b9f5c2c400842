/**
 * A turn's child spans recorded as plain entries while the turn runs, and made by the SDK all at
 * once when the turn's root span ends: each with the start and end times, attributes, status and
 * events it was given, under the parent it was started under, with the id its log lines carried.
 * What the endpoint receives is what it would have received had each been made as it happened;
 * only the moment differs: the children arrive with their root, at the turn's end.
 *
 * Why: the SDK's span code runs about ten times in a turn of tens of milliseconds, so it never stays
 * in the CPU's caches. Timed inside a running bot (scenario 17, 50 concurrent agent turns), a
 * `startSpan` took 25–29 µs, and the same call again right after it 7.5–9 µs. Made one after another,
 * a turn's spans run mostly warm (docs/performance.md, "Issue 29 on an Intel Xeon machine: tracing's
 * code timed where it runs").
 *
 * The turn's root is made by the SDK at once: its sampling decision and its ids are needed as the
 * turn starts. A child started or ended after its turn's end goes to the SDK as it happens.
 */
import {
  type Context,
  context as contextApi,
  type Exception,
  type Link,
  type Span,
  type SpanAttributes,
  type SpanAttributeValue,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { SpanIds } from './span-ids.js';

/** What Scout's tracers use of a tracer. */
export type SpanStarter = Pick<Tracer, 'startSpan'>;

type Op = (span: Span) => void;

const now = () => performance.now();

/** A time given as such (not an attributes object): milliseconds, a Date, or [seconds, nanoseconds]. */
const isTime = (value: unknown): value is TimeInput =>
  typeof value === 'number' ||
  value instanceof Date ||
  (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number');

class Turn {
  /** Children in the order they started (a parent before its children), then in the order they ended. */
  readonly started: DeferredSpan[] = [];
  readonly ended: DeferredSpan[] = [];
  open = true;

  constructor(
    readonly tracer: Tracer,
    readonly ids: SpanIds,
  ) {}

  /** Makes every child with the SDK: started in their order, then ended in theirs. */
  close(): void {
    this.open = false;
    for (const span of this.started) span.make();
    for (const span of this.ended) span.finish();
  }
}

/** The turn's root: the SDK's span, which makes its children when it ends. */
class TurnRoot implements Span {
  constructor(
    readonly turn: Turn,
    readonly real: Span,
  ) {}

  spanContext(): SpanContext {
    return this.real.spanContext();
  }
  setAttribute(key: string, value: SpanAttributeValue): this {
    this.real.setAttribute(key, value);
    return this;
  }
  setAttributes(attributes: SpanAttributes): this {
    this.real.setAttributes(attributes);
    return this;
  }
  addEvent(name: string, attributesOrTime?: SpanAttributes | TimeInput, time?: TimeInput): this {
    this.real.addEvent(name, attributesOrTime, time);
    return this;
  }
  addLink(link: Link): this {
    this.real.addLink(link);
    return this;
  }
  addLinks(links: Link[]): this {
    this.real.addLinks(links);
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.real.setStatus(status);
    return this;
  }
  updateName(name: string): this {
    this.real.updateName(name);
    return this;
  }
  isRecording(): boolean {
    return this.real.isRecording();
  }
  recordException(exception: Exception, time?: TimeInput): void {
    this.real.recordException(exception, time);
  }
  end(endTime?: TimeInput): void {
    // The root's end is now, not after its children have been made.
    const at = endTime ?? now();
    if (this.turn.open) this.turn.close();
    this.real.end(at);
  }
}

/** A child span of an open turn: what is done to it is kept until the SDK makes it. */
class DeferredSpan implements Span {
  readonly #context: SpanContext;
  readonly #start = now();
  #ops: Op[] = [];
  #endTime: TimeInput | undefined;
  #ended = false;
  #real: Span | undefined;

  constructor(
    readonly turn: Turn,
    readonly parent: TurnRoot | DeferredSpan,
    readonly name: string,
    readonly options: SpanOptions,
    readonly context: Context,
  ) {
    const parentContext = parent.spanContext();
    this.#context = {
      traceId: parentContext.traceId,
      spanId: turn.ids.generateSpanId(),
      traceFlags: parentContext.traceFlags,
      ...(parentContext.traceState ? { traceState: parentContext.traceState } : {}),
    };
  }

  /** The SDK's span, once made (the turn has ended). */
  get real(): Span | undefined {
    return this.#real;
  }

  /** Starts the SDK's span under its parent's, with this span's id, and does to it what was done. */
  make(): void {
    const parent = this.parent.real;
    if (!parent) return; // cannot happen: a parent starts, and is made, before its children
    const { tracer, ids } = this.turn;
    const options =
      this.options.startTime === undefined ? { ...this.options, startTime: this.#start } : this.options;
    this.#real = ids.withReserved(this.#context.spanId, () =>
      tracer.startSpan(this.name, options, trace.setSpan(this.context, parent)),
    );
    for (const op of this.#ops) op(this.#real);
    this.#ops = [];
  }

  finish(): void {
    this.#real?.end(this.#endTime);
  }

  #do(op: Op): this {
    if (this.#real) op(this.#real);
    else if (!this.#ended) this.#ops.push(op);
    return this;
  }

  spanContext(): SpanContext {
    return this.#context;
  }
  setAttribute(key: string, value: SpanAttributeValue): this {
    return this.#do((span) => span.setAttribute(key, value));
  }
  setAttributes(attributes: SpanAttributes): this {
    return this.#do((span) => span.setAttributes(attributes));
  }
  addEvent(name: string, attributesOrTime?: SpanAttributes | TimeInput, time?: TimeInput): this {
    // An event's time is when it was added, not when the span is made.
    const at = time ?? (isTime(attributesOrTime) ? undefined : now());
    return this.#do((span) => span.addEvent(name, attributesOrTime, at));
  }
  addLink(link: Link): this {
    return this.#do((span) => span.addLink(link));
  }
  addLinks(links: Link[]): this {
    return this.#do((span) => span.addLinks(links));
  }
  setStatus(status: SpanStatus): this {
    return this.#do((span) => span.setStatus(status));
  }
  updateName(name: string): this {
    return this.#do((span) => span.updateName(name));
  }
  isRecording(): boolean {
    return this.#real ? this.#real.isRecording() : !this.#ended;
  }
  recordException(exception: Exception, time?: TimeInput): void {
    const at = time ?? now();
    this.#do((span) => span.recordException(exception, at));
  }
  end(endTime?: TimeInput): void {
    if (this.#real) {
      this.#real.end(endTime);
      return;
    }
    if (this.#ended) return;
    this.#ended = true;
    this.#endTime = endTime ?? now();
    this.turn.ended.push(this);
  }
}

/**
 * A tracer whose spans with no parent are turns: made by the SDK's `tracer` at once, with their
 * children deferred to their end. `ids` must be the SDK's id generator (its `idGenerator` option).
 */
export function deferChildSpans(tracer: Tracer, ids: SpanIds): SpanStarter {
  return {
    startSpan(name: string, options: SpanOptions = {}, context: Context = contextApi.active()): Span {
      const parent = options.root ? undefined : trace.getSpan(context);
      if (parent instanceof TurnRoot || parent instanceof DeferredSpan) {
        const { turn } = parent;
        if (turn.open) {
          const span = new DeferredSpan(turn, parent, name, options, context);
          turn.started.push(span);
          return span;
        }
        // The turn has ended (and made its spans): this one goes to the SDK at once.
        const real = parent.real;
        return tracer.startSpan(name, options, real ? trace.setSpan(context, real) : context);
      }
      const span = tracer.startSpan(name, options, context);
      // A turn the sampler leaves out has nothing to defer.
      if (parent !== undefined || !span.isRecording()) return span;
      return new TurnRoot(new Turn(tracer, ids), span);
    },
  };
}
