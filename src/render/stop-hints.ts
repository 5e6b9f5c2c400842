/**
 * Which native streams may show the stop hint (answer-stream.ts). A stream cannot carry a Stop
 * button, so its opening text says how to stop it; streamed text cannot be taken back, so the hint
 * costs one ordinary edit after the stream's stop. Where edits are limited in a wide scope (Slack:
 * chat.update, Tier 3, about 50 a minute per workspace), a burst of streams ending together would
 * queue those closing edits behind the window, and a finished answer would go on saying "reply
 * stop" for up to a minute. So a stream shows the hint only if the scope's window can still cover
 * the closing edit of every hinted stream already running plus its own; otherwise it starts
 * without one (the asker can still write "stop" in the thread, it only is not said).
 *
 * The count of hinted streams is kept per scope here, each one held by a ticket that its stream
 * gives back once its closing edit has a slot, or when the turn ends however it ends.
 */

/** One hinted stream's claim on its scope's edits: give it back once (later calls do nothing). */
export interface HintTicket {
  release(): void;
}

/** Asked when a stream is about to start: a ticket to show the hint, or undefined for none. */
export type ClaimStopHint = () => HintTicket | undefined;

/** The hinted streams in flight, per scope (Slack: per workspace). */
export class StopHintBudgets {
  readonly #held = new Map<string, number>();

  /** Hinted streams of `key` holding a ticket now. */
  held(key: string): number {
    return this.#held.get(key) ?? 0;
  }

  /**
   * A ticket when `room` (the urgent edits the scope's window still allows now: ChannelPacer.room)
   * covers the closing edits of the streams already holding one plus this one; else undefined.
   */
  claim(key: string, room: number): HintTicket | undefined {
    const held = this.held(key);
    if (held + 1 > room) return undefined;
    this.#held.set(key, held + 1);
    let open = true;
    return {
      release: () => {
        if (!open) return;
        open = false;
        const left = this.held(key) - 1;
        // Forgotten at zero: memory follows the scopes streaming now.
        if (left > 0) this.#held.set(key, left);
        else this.#held.delete(key);
      },
    };
  }
}
