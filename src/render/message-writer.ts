/**
 * What the renderer and an answer stream ask of a surface for one answer message: the write
 * primitives and the controls an answer part carries. In a file of its own so that turn-renderer.ts
 * and answer-stream.ts can both name them without importing each other.
 */

/** Controls of one answer part. */
export interface AnswerControls {
  stop: boolean;
  /** The last part of a finished answer: 👍/👎 (and the footer where it is not in the text). */
  feedback: boolean;
  /** The footer line for surfaces that show it outside the Markdown (Slack context block). */
  footer?: string;
}

/** The primitives of a surface: write one message. Failures are `DeliveryError`s (delivery.ts). */
export interface MessageWriter<P, R> {
  post(payload: P): Promise<R>;
  edit(ref: R, payload: P): Promise<void>;
  /** Absent where a message cannot be deleted (it is blanked instead). */
  remove?(ref: R): Promise<void>;
}
