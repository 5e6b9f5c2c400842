/**
 * One process-wide clock for streamed events that can wait a moment. At 50 tokens a second a
 * provider sends each token in its own network chunk, and each one handed on alone makes a full
 * pass through the pipeline (driver, client, watchers, renderer): promise steps and generator
 * resumptions that were about a sixth of a chat turn's CPU (bench scenario 6 on Node 24). No surface
 * shows text faster than that: Slack and Discord are written about once a second, the terminal
 * prints what came. So once a stream's first part has gone on, what arrives while its consumer waits
 * is held until the clock's next tick and goes on together with what follows it.
 *
 * One timer for every stream, not one per stream: 50 concurrent answers cost one timer callback
 * per window. The timer comes from node:timers, not the global: a test that fakes the global
 * clock still gets its streams.
 */
import { setTimeout as realTimeout } from 'node:timers';

/** How long held events wait at most (ms): 25 updates a second, smoother than any surface shows. */
export const BATCH_WINDOW_MS = 40;

export interface Held {
  /** Hands on what was held. Runs once per hold, at the window's tick. */
  flush(): void;
}

/** Holds a batch until a tick: the default window, or (tests) one that never ticks. */
export type HoldForWindow = (batch: Held) => void;

const held = new Set<Held>();
let timer: NodeJS.Timeout | undefined;

function tick(): void {
  timer = undefined;
  const due = [...held];
  held.clear();
  for (const batch of due) batch.flush();
}

/** `batch.flush()` runs at the clock's next tick, at most BATCH_WINDOW_MS from now. */
export const holdForWindow: HoldForWindow = (batch) => {
  held.add(batch);
  if (timer === undefined) {
    timer = realTimeout(tick, BATCH_WINDOW_MS);
    // A stream in flight keeps the process alive by its socket; the clock alone never does.
    timer.unref();
  }
};
