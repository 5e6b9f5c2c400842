/**
 * A client's stream with someone watching its parts: metrics, traces and usage limits each wrap the
 * model clients this way. A plain iterator over the client's, not another async generator — one more
 * generator layer for every streamed token of every answer was measurable.
 */
import type { StreamPart } from './types.js';

export interface StreamWatcher {
  /** Each part as it passes to the consumer. */
  part?(part: StreamPart): void;
  /** The stream failed; `end` follows. */
  error?(err: unknown): void;
  /** Once: the stream finished, failed, or its consumer stopped early (Stop, a time limit). */
  end?(): void;
}

/**
 * `watch` is called when iteration starts (before the client's stream opens), so each iteration —
 * each model call — gets a watcher of its own.
 */
export function watchedStream(
  open: () => AsyncIterable<StreamPart>,
  watch: () => StreamWatcher,
): AsyncIterable<StreamPart> {
  return {
    [Symbol.asyncIterator]() {
      const watcher = watch();
      const parts = open()[Symbol.asyncIterator]();
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        watcher.end?.();
      };
      return {
        next: () =>
          parts.next().then(
            (result) => {
              if (result.done) end();
              else watcher.part?.(result.value);
              return result;
            },
            (err: unknown) => {
              watcher.error?.(err);
              end();
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
}
