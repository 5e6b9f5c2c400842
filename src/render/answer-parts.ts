/**
 * What LiveAnswer is given (the platform's post / edit / remove, its limits and pace) and what it
 * keeps per message: each answer part with its editor, the source range and lines it shows.
 */
import type { PaceRequest } from './channel-pacer.js';
import type { EditorClock } from './editor-clock.js';
import type { LineRange } from './answer-lines.js';
import type { ThrottledEditor } from './throttled-editor.js';

/** Where a part sits, so the payload builder can add controls to the last one only. */
export interface PartPlace {
  index: number;
  /** The last part of the answer as it stands. */
  last: boolean;
  /** The answer is final (`finish`): the last part carries the closing controls. */
  final: boolean;
}

export interface LiveAnswerOptions<P, R> {
  post: (payload: P) => Promise<R>;
  edit: (ref: R, payload: P) => Promise<void>;
  /**
   * Optional: removes a message the text no longer needs (the final answer is shorter than what
   * streamed). Without it such a message is edited to `EMPTY_PART_TEXT`.
   */
  remove?: (ref: R) => Promise<void>;
  /** Limit per message, measured on the Markdown before `transform`. */
  maxChars: number;
  intervalMs: number;
  clock?: EditorClock;
  /** Turns a Markdown part into the platform payload (Slack blocks, Discord message options). */
  transform?: (markdown: string, place: PartPlace) => P;
  key?: (payload: P) => string;
  onError?: (error: unknown, call: 'post' | 'edit' | 'remove') => void;
  /** How long `finish` keeps retrying a final payload that fails with a retryable error. */
  finalDeadlineMs?: number;
  /**
   * The channel's pace for the call of part `index` (channel-pacer.ts). A follow-up part asks for
   * its first slot only once the part before it is posted.
   */
  pace?: (call: 'post' | 'edit', index: number, urgent: boolean) => PaceRequest;
  /** How long part `index`'s editor may hold an edit with this payload (throttled-editor.ts `hold`). */
  hold?: (index: number, payload: P) => number;
  /** Brings the parts up to date just before an editor's call reads its payload (throttled-editor.ts). */
  refresh?: () => void;
}

/** A payload as the part's editor sends it: numbered, so a landed send says which ranges it ended. */
export interface Sent<P> {
  payload: P;
  seq: number;
  /** The source lines it shows. */
  range: LineRange;
}

export interface Part<P, R> {
  editor: ThrottledEditor<Sent<P>, R>;
  /** Source range of the part in the text it was cut from. */
  start: number;
  end: number;
  /** The source lines the part should show, and the line index of `end` (newlines before it). */
  lines: LineRange;
  endLine: number;
  /**
   * The lines the platform may show in this message: what its last landed send showed, what a send
   * in flight shows once it lands, and what the editor was last given (it goes next; anything given
   * before it is never sent, the editor keeps the last). Other messages keep clear of all three.
   */
  showing: LineRange;
  flying: LineRange | undefined;
  latest: LineRange | undefined;
  /** The message exists or its post was given up: the part after it may be posted. */
  settled: boolean;
  /** Content that takes lines another message may still show: handed once they are clear. */
  held?: { payload: P; range: LineRange };
  /** The Markdown this message should show, and where it sits (the payload depends on both). */
  markdown: string;
  last: boolean;
  final: boolean;
  /**
   * Resolves once the message exists (or its post was given up): the next part waits so the thread
   * reads in order even when a post is refused for a while (rate limits).
   */
  posted: Promise<void>;
  settle: () => void;
}
