/**
 * Time Scout spends waiting on the model and on search, measured at Scout's own client boundary:
 * the LlmClient and SearchService wrapped through `buildScout({ wrapLlm, wrapSearch })`. The fakes
 * measure the same calls at the server; the difference is loopback HTTP, the SDKs' request building
 * and stream parsing, and the provider adapter. Subtracting these client-side waits from the wall
 * time leaves Scout's own work. Calls are attributed to turns with AsyncLocalStorage (the harness
 * runs each turn inside `run(tag, …)`), so concurrent turns do not mix.
 *
 * Edit pacing is recorded too: once a turn's final render started (`finishing`), every timer the
 * edit throttling sets is a deliberate wait for Slack's edit interval (e.g. the stream's closing
 * call one interval after its previous append), not work — it is reported on its own line.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { LlmClient, LlmRequest, StreamPart } from '../src/llm/types.js';
import type { EditorClock } from '../src/render/editor-clock.js';
import type { SearchService } from '../src/search/types.js';
import { epochNow } from './fakes/fake-llm.js';

/** undici (Node's fetch) announces each request and the arrival of its response headers here. */
const UNDICI_CREATE = 'undici:request:create';
const UNDICI_HEADERS = 'undici:request:headers';

/** A [start, end] span in epoch ms (sub-ms), comparable with the fakes' records. */
export type Span = [number, number];

export interface TurnWaits {
  model: Span[];
  search: Span[];
  /** Edit-interval waits during the final render. */
  pacing: Span[];
  /** Slack Web API calls: request created → response headers back (the WebClient uses fetch). */
  slack: Span[];
  /** The sink's `done` has been called: throttle timers from now on block the turn's end. */
  finishing: boolean;
}

/** Total length of the union of spans (overlapping waits count once). */
export function unionMs(spans: Span[]): number {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [s, e] of sorted) {
    if (e <= end) continue;
    total += e - Math.max(s, end);
    end = e;
  }
  return total;
}

export class ClientTimings {
  readonly #als = new AsyncLocalStorage<TurnWaits>();
  readonly #turns = new Map<string, TurnWaits>();

  /** Runs one turn with its waits recorded under `tag`. */
  run<T>(tag: string, fn: () => Promise<T>): Promise<T> {
    const waits: TurnWaits = { model: [], search: [], pacing: [], slack: [], finishing: false };
    this.#turns.set(tag, waits);
    return this.#als.run(waits, fn);
  }

  get(tag: string): TurnWaits | undefined {
    return this.#turns.get(tag);
  }

  clear(): void {
    this.#turns.clear();
  }

  /**
   * Records Slack Web API round trips through undici's diagnostics channels (the WebClient uses
   * fetch; only paths under the Web API's `/api/` count, so model and search requests are left
   * out). Attribution follows the async context of the caller; with many turns at once the
   * WebClient's queue may blur it, so only sequential scenarios report it. Returns a function that
   * stops recording.
   */
  watchSlackCalls(): () => void {
    type UndiciRequest = { path: string };
    const open = new WeakMap<UndiciRequest, Span>();
    const onCreate = (message: unknown) => {
      const { request } = message as { request: UndiciRequest };
      const waits = this.#als.getStore();
      if (!waits || !request.path.includes('/api/')) return;
      const span: Span = [epochNow(), Number.NaN];
      waits.slack.push(span);
      open.set(request, span);
    };
    const onHeaders = (message: unknown) => {
      const span = open.get((message as { request: UndiciRequest }).request);
      if (span) span[1] = epochNow();
    };
    subscribe(UNDICI_CREATE, onCreate);
    subscribe(UNDICI_HEADERS, onHeaders);
    return () => {
      unsubscribe(UNDICI_CREATE, onCreate);
      unsubscribe(UNDICI_HEADERS, onHeaders);
    };
  }

  /** Marks the current turn's final render as started (call from the sink's `done`). */
  markFinishing(): void {
    const waits = this.#als.getStore();
    if (waits) waits.finishing = true;
  }

  /** The edit throttling's clock: real timers, with the final render's waits recorded as pacing. */
  readonly clock: EditorClock = (() => {
    const als = this.#als;
    const open = new Map<unknown, Span>();
    return {
      now: () => Date.now(),
      setTimeout(fn: () => void, ms: number) {
        const waits = als.getStore();
        const handle = setTimeout(() => {
          open.delete(handle);
          fn();
        }, ms);
        if (waits?.finishing) {
          const start = epochNow();
          const span: Span = [start, start + Math.max(0, ms)];
          waits.pacing.push(span);
          open.set(handle, span);
        }
        return handle;
      },
      clearTimeout(handle: unknown) {
        const span = open.get(handle);
        if (span) span[1] = Math.min(span[1], epochNow());
        open.delete(handle);
        clearTimeout(handle as ReturnType<typeof setTimeout>);
      },
    };
  })();

  /** Records every wait on the model: each `next()` of a stream, each `complete`. */
  readonly wrapLlm = (client: LlmClient): LlmClient => {
    const als = this.#als;
    async function* stream(request: LlmRequest): AsyncGenerator<StreamPart> {
      const waits = als.getStore();
      const iterator = client.stream(request)[Symbol.asyncIterator]();
      try {
        while (true) {
          const start = epochNow();
          const next = await iterator.next();
          waits?.model.push([start, epochNow()]);
          if (next.done) return;
          // Scout's handling of the part (outside the span) runs while this generator is suspended.
          yield next.value;
        }
      } finally {
        await iterator.return?.();
      }
    }
    return {
      config: client.config,
      label: client.label,
      stream,
      async complete(request) {
        const waits = als.getStore();
        const start = epochNow();
        try {
          return await client.complete(request);
        } finally {
          waits?.model.push([start, epochNow()]);
        }
      },
    };
  };

  /** Records every search call (a cache hit is a short span: it is Scout's own work, counted as wait). */
  readonly wrapSearch = (service: SearchService): SearchService => {
    const als = this.#als;
    return {
      available: service.available,
      providerName: service.providerName,
      async search(query, options) {
        const waits = als.getStore();
        const start = epochNow();
        try {
          return await service.search(query, options);
        } finally {
          waits?.search.push([start, epochNow()]);
        }
      },
      clearSession: (sessionKey) => service.clearSession(sessionKey),
    };
  };
}
