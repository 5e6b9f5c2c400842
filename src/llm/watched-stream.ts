/**
 * A client's stream with someone watching its parts: metrics, traces and usage limits each wrap the
 * model clients this way. A plain iterator over the client's, not another async generator — one more
 * generator layer for every streamed token of every answer was measurable. Wrapping a stream that
 * is already watched adds a watcher, not a layer: metrics around limits around traces hand each
 * part on in one promise step, not three (a promise per layer per token showed in bench scenario
 * 6's CPU profile).
 */
import type { StreamPart } from './types.js';

export interface StreamWatcher {
  /** Each part as it passes to the consumer (of `partTypes`, where given). */
  part?(part: StreamPart): void;
  /**
   * The kinds of part `part` is called for; every kind when absent. Most parts are text, one per
   * token: a watcher that reads only the usage or the finish says so and is not called for each
   * token (traces on cost a call per token per watcher, bench scenario 17's profile).
   */
  partTypes?: ReadonlyArray<StreamPart['type']>;
  /** The stream failed; `end` follows. */
  error?(err: unknown): void;
  /** Once: the stream finished, failed, or its consumer stopped early (Stop, a time limit). */
  end?(): void;
}

/** How a watched stream is made: the client's stream and every watcher, innermost first. */
const WATCHED = Symbol('watched stream');

interface Watched extends AsyncIterable<StreamPart> {
  [WATCHED]: { open: () => AsyncIterable<StreamPart>; watches: Array<() => StreamWatcher> };
}

function isWatched(stream: AsyncIterable<StreamPart>): stream is Watched {
  return WATCHED in stream;
}

/**
 * `watch` is called when iteration starts (before the client's stream opens), so each iteration —
 * each model call — gets a watcher of its own. Watchers see each part in the order they were
 * added (the innermost wrapper's first), as nested layers would.
 */
export function watchedStream(
  open: () => AsyncIterable<StreamPart>,
  watch: () => StreamWatcher,
): AsyncIterable<StreamPart> {
  // Making the stream starts nothing (a watched stream and an async generator both wait for
  // iteration), so it can be looked at now; the first iteration uses it, later ones open anew.
  const made = open();
  let base: Watched[typeof WATCHED];
  if (isWatched(made)) base = made[WATCHED];
  else {
    let unused: AsyncIterable<StreamPart> | undefined = made;
    base = {
      open: () => {
        const stream = unused ?? open();
        unused = undefined;
        return stream;
      },
      watches: [],
    };
  }
  const watches = [...base.watches, watch];
  const stream: Watched = {
    [WATCHED]: { open: base.open, watches },
    [Symbol.asyncIterator]() {
      const watchers = watches.map((make) => make());
      const wanting = (type: StreamPart['type']) =>
        watchers.filter((w) => w.part !== undefined && (w.partTypes?.includes(type) ?? true));
      // Who is told of the parts that come by the hundred (a token each); the rest are looked up.
      const forText = wanting('text');
      const forReasoning = wanting('reasoning');
      const tell = (part: StreamPart) => {
        const told =
          part.type === 'text' ? forText : part.type === 'reasoning' ? forReasoning : wanting(part.type);
        for (let i = 0; i < told.length; i++) told[i]!.part!(part);
      };
      const parts = base.open()[Symbol.asyncIterator]();
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        for (const watcher of watchers) watcher.end?.();
      };
      return {
        next: () =>
          parts.next().then(
            (result) => {
              if (result.done) end();
              else tell(result.value);
              return result;
            },
            (err: unknown) => {
              // Each watcher hears of the failure and then its end, as nested layers would.
              if (!ended) {
                ended = true;
                for (const watcher of watchers) {
                  watcher.error?.(err);
                  watcher.end?.();
                }
              }
              throw err;
            },
          ),
        // The consumer stopped early: end the client's stream (its connection), then the watch.
        return: async (value?: unknown) => {
          try {
            await parts.return?.(value);
          } finally {
            end();
          }
          return { done: true as const, value: value as StreamPart };
        },
      };
    },
  };
  return stream;
}
