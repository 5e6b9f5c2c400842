/**
 * Streams one growing Markdown answer into as many platform messages as it needs. The text is split
 * with `planSplit`; a part that is complete (not the last) is finalised once and not edited again
 * while streaming; the last part is a ThrottledEditor; overflow is posted as follow-up messages, in
 * order. `finish` lands the final text, which may differ from what streamed (citations linked):
 * earlier parts are edited only where their final content changed. Every message is ≤ maxChars.
 */
import { planSplit, type SplitContext, splitContextAt } from './split-text.js';
import { type EditorClock, ThrottledEditor } from './throttled-editor.js';

export interface LiveAnswerOptions<P, R> {
  post: (payload: P) => Promise<R>;
  edit: (ref: R, payload: P) => Promise<void>;
  /**
   * Optional: removes a message the final text no longer needs (the final answer is shorter than
   * what streamed). Without it such a message is edited to `EMPTY_PART_TEXT`.
   */
  remove?: (ref: R) => Promise<void>;
  /** Limit per message, measured on the Markdown before `transform`. */
  maxChars: number;
  intervalMs: number;
  clock?: EditorClock;
  /** Turns a Markdown part into the platform payload (Slack blocks, Discord message options). */
  transform?: (markdown: string) => P;
  key?: (payload: P) => string;
  onError?: (error: unknown, call: 'post' | 'edit' | 'remove') => void;
}

/** What a surplus message shows when the platform offers no way to delete it. */
export const EMPTY_PART_TEXT = '…';

interface Part<P, R> {
  editor: ThrottledEditor<P, R>;
  /** Source range of the part in the text it was cut from. */
  start: number;
  end: number;
  /** The Markdown this message should show. */
  markdown: string;
  /** Resolves once the message's first post settled: the next part waits so order is kept. */
  posted: Promise<void>;
}

export class LiveAnswer<P = string, R = unknown> {
  readonly #opts: LiveAnswerOptions<P, R>;
  readonly #transform: (markdown: string) => P;
  readonly #parts: Part<P, R>[] = [];
  /** Parts before this index are complete and not edited while streaming. */
  #finalised = 0;
  #text = '';
  /** Scan state where the frozen parts end, so each `set` only scans the open tail. */
  #context: SplitContext = { lineStart: 0, fence: null };
  #finished = false;

  constructor(options: LiveAnswerOptions<P, R>) {
    this.#opts = options;
    this.#transform = options.transform ?? ((markdown) => markdown as unknown as P);
  }

  /** Platform references of the messages posted so far, in order. */
  get refs(): R[] {
    return this.#parts.flatMap((part) => (part.editor.ref === undefined ? [] : [part.editor.ref]));
  }

  /** Number of messages the answer uses (posted or about to be). */
  get messageCount(): number {
    return this.#parts.length;
  }

  /** Sets the whole answer so far. Returns at once; sends are throttled per message. */
  set(fullText: string): void {
    if (this.#finished) return;
    this.#text = fullText;
    const from = this.#frozenEnd();
    if (this.#context.lineStart > from) this.#context = splitContextAt(fullText, from);
    const plan = planSplit(fullText, this.#opts.maxChars, from, this.#context);
    plan.forEach((chunk, i) => {
      this.#show(this.#finalised + i, chunk.text, chunk.start, chunk.end);
    });
    // Every part but the last is complete: freeze its boundary so later text never moves it.
    if (plan.length > 1) {
      this.#finalised += plan.length - 1;
      this.#context = splitContextAt(fullText, this.#frozenEnd(), this.#context);
    }
  }

  #frozenEnd(): number {
    return this.#finalised > 0 ? this.#parts[this.#finalised - 1]!.end : 0;
  }

  /**
   * Lands the final text (default: the last text set) and resolves when every message shows it.
   * Earlier messages are edited only where their content changed; never throws.
   */
  async finish(finalText?: string): Promise<void> {
    this.#finished = true;
    const text = finalText ?? this.#text;
    // Keep the leading parts whose source is unchanged, so an unchanged answer causes no edits.
    let keep = 0;
    while (keep < this.#finalised && text.startsWith(this.#text.slice(0, this.#parts[keep]!.end))) keep++;
    const from = keep > 0 ? this.#parts[keep - 1]!.end : 0;
    const plan = planSplit(text, this.#opts.maxChars, from, splitContextAt(text, from));
    plan.forEach((chunk, i) => {
      this.#show(keep + i, chunk.text, chunk.start, chunk.end);
    });
    this.#finalised = keep + plan.length;
    this.#text = text;

    const surplus = this.#parts.slice(keep + plan.length);
    await Promise.all([
      ...this.#parts.slice(0, keep + plan.length).map((part) => part.editor.flush()),
      ...surplus.map((part) => this.#retire(part)),
    ]);
  }

  #show(index: number, markdown: string, start: number, end: number): void {
    const existing = this.#parts[index];
    if (existing) {
      existing.start = start;
      existing.end = end;
      if (existing.markdown !== markdown) {
        existing.markdown = markdown;
        existing.editor.set(this.#transform(markdown));
      }
      return;
    }
    const previous = this.#parts[index - 1]?.posted;
    let settled!: () => void;
    const posted = new Promise<void>((resolve) => {
      settled = resolve;
    });
    const editor = new ThrottledEditor<P, R>({
      // A follow-up is posted only after the message before it, so the thread reads in order.
      post: async (payload) => {
        if (previous) await previous;
        try {
          return await this.#opts.post(payload);
        } finally {
          settled();
        }
      },
      edit: this.#opts.edit,
      intervalMs: this.#opts.intervalMs,
      clock: this.#opts.clock,
      key: this.#opts.key,
      onError: this.#opts.onError,
    });
    this.#parts[index] = { editor, start, end, markdown, posted };
    editor.set(this.#transform(markdown));
  }

  /** A message the final text does not need: delete it, or blank it when deleting is not offered. */
  async #retire(part: Part<P, R>): Promise<void> {
    if (!this.#opts.remove) {
      part.markdown = EMPTY_PART_TEXT;
      part.editor.set(this.#transform(EMPTY_PART_TEXT));
      await part.editor.flush();
      return;
    }
    // Let a post in flight settle so there is a reference to delete.
    await part.editor.flush();
    part.editor.dispose();
    const ref = part.editor.ref;
    if (ref === undefined) return;
    try {
      await this.#opts.remove(ref);
    } catch (error) {
      this.#opts.onError?.(error, 'remove');
    }
  }
}
