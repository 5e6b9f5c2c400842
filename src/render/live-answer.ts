/**
 * Streams one Markdown answer into as many platform messages as it needs, and reconciles them with
 * whatever text comes next: longer (streaming), rewritten (citations linked, a retry), or shorter.
 *
 * The text is split with `planSplit`; a part that is complete (not the last) is frozen while the
 * text only grows, so streaming never moves a boundary the user already saw. Each part is a
 * ThrottledEditor; overflow is posted as follow-up messages, in order. Whenever a new text does not
 * start with the source of a frozen part, that part and everything after it are re-split from the
 * last part that is still a true prefix: parts are edited only where their content changed and
 * messages the text no longer needs are deleted (and forgotten, so nothing is sent to them later).
 * Every message is ≤ maxChars.
 */
import { type PaceRequest, requestAfter } from './channel-pacer.js';
import { landFinal } from './delivery.js';
import { planSplit, type SplitContext, splitContextAt } from './split-text.js';
import { type EditorClock, ThrottledEditor } from './throttled-editor.js';

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
}

/** What a surplus message shows when the platform offers no way to delete it. */
export const EMPTY_PART_TEXT = '…';

interface Part<P, R> {
  editor: ThrottledEditor<P, R>;
  /** Source range of the part in the text it was cut from. */
  start: number;
  end: number;
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

export class LiveAnswer<P = string, R = unknown> {
  readonly #opts: LiveAnswerOptions<P, R>;
  readonly #transform: (markdown: string, place: PartPlace) => P;
  #parts: Part<P, R>[] = [];
  /** Parts before this index are complete and not edited while the text only grows. */
  #finalised = 0;
  /** The text the parts were cut from. */
  #text = '';
  /** Scan state where the frozen parts end, so each `set` only scans the open tail. */
  #context: SplitContext = { lineStart: 0, fence: null };
  #finished = false;
  /** `finish` sets the last part's final payload itself, after the parts before it landed. */
  #holdLast = false;
  /** Deletions of parts the text no longer needs, awaited by `finish`. */
  readonly #retiring: Promise<void>[] = [];

  constructor(options: LiveAnswerOptions<P, R>) {
    this.#opts = options;
    this.#transform = options.transform ?? ((markdown) => markdown as unknown as P);
  }

  /** Platform references of the messages that show the answer now, in order (retired ones excluded). */
  get refs(): R[] {
    return this.#parts.flatMap((part) => (part.editor.ref === undefined ? [] : [part.editor.ref]));
  }

  /** Number of messages the answer uses (posted or about to be). */
  get messageCount(): number {
    return this.#parts.length;
  }

  /** Markdown of every part as it should show now (what the platform shows once all calls landed). */
  get parts(): string[] {
    return this.#parts.map((part) => part.markdown);
  }

  /** Sets the whole answer so far, whatever it is. Returns at once; sends are throttled per message. */
  set(fullText: string): void {
    if (this.#finished) return;
    this.#reconcile(fullText, false);
  }

  /**
   * Lands the final text (default: the last text set) and resolves when every message shows it, or
   * the deadline for a failing message passed. Earlier messages are edited only where their content
   * changed; never throws.
   */
  async finish(finalText?: string): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    // The last part's final content (with the closing controls) is sent once the parts before it
    // landed: when 👍/👎 shows, the whole answer is final, even where the channel's pace spreads
    // the final edits over seconds.
    this.#holdLast = true;
    this.#reconcile(finalText ?? this.#text, true);
    this.#holdLast = false;
    const land = async (part: Part<P, R>) => {
      await part.editor.flush(this.#opts.finalDeadlineMs);
      // Landed or given up: the parts after it no longer wait for it.
      part.settle();
    };
    const last = this.#parts.at(-1);
    await Promise.all(this.#parts.slice(0, -1).map(land));
    if (last) {
      last.editor.set(this.#payload(last, this.#parts.length - 1));
      await land(last);
    }
    await Promise.all(this.#retiring);
  }

  /** Re-sets the content of the last part (its controls changed) without changing the text. */
  refresh(): void {
    const last = this.#parts.at(-1);
    if (!last) return;
    last.editor.set(this.#payload(last, this.#parts.length - 1));
  }

  #reconcile(text: string, final: boolean): void {
    const keep = this.#keptParts(text);
    const from = keep > 0 ? this.#parts[keep - 1]!.end : 0;
    // The scan state at `from` depends only on the text before it, unchanged when nothing was dropped.
    if (keep < this.#finalised || this.#context.lineStart > from) this.#context = splitContextAt(text, from);
    const plan = planSplit(text, this.#opts.maxChars, from, this.#context);
    const count = keep + plan.length;
    // Parts the new text no longer needs go first, so nothing is ever sent to them again.
    for (const part of this.#parts.splice(count)) this.#retiring.push(this.#retire(part));
    // Parts kept from before may have been the last one: their controls change.
    for (let i = 0; i < keep; i++) this.#show(i, this.#parts[i]!.markdown, count, final);
    plan.forEach((chunk, i) => {
      const index = keep + i;
      const existing = this.#parts[index];
      if (existing) {
        existing.start = chunk.start;
        existing.end = chunk.end;
      }
      this.#show(index, chunk.text, count, final, chunk.start, chunk.end);
    });
    this.#text = text;
    this.#finalised = final ? count : keep + Math.max(0, plan.length - 1);
    // Every part but the last is complete: freeze its boundary so later text never moves it.
    if (this.#finalised > keep) this.#context = splitContextAt(text, this.#frozenEnd(), this.#context);
  }

  /** How many frozen parts are still a true prefix of `text` (checked from the last, cheap when growing). */
  #keptParts(text: string): number {
    let keep = this.#finalised;
    while (keep > 0 && !text.startsWith(this.#text.slice(0, this.#parts[keep - 1]!.end))) keep--;
    return keep;
  }

  #frozenEnd(): number {
    return this.#finalised > 0 ? this.#parts[this.#finalised - 1]!.end : 0;
  }

  #payload(part: Part<P, R>, index: number): P {
    return this.#transform(part.markdown, { index, last: part.last, final: part.final });
  }

  #show(index: number, markdown: string, count: number, final: boolean, start = 0, end = 0): void {
    const last = index === count - 1;
    const existing = this.#parts[index];
    if (existing) {
      if (existing.markdown === markdown && existing.last === last && existing.final === final) return;
      existing.markdown = markdown;
      existing.last = last;
      existing.final = final;
      if (!(last && this.#holdLast)) existing.editor.set(this.#payload(existing, index));
      return;
    }
    const previous = this.#parts[index - 1]?.posted;
    let settled!: () => void;
    const posted = new Promise<void>((resolve) => {
      settled = resolve;
    });
    const pace = this.#opts.pace;
    const editor = new ThrottledEditor<P, R>({
      // A follow-up is posted only after the message before it, so the thread reads in order.
      ...(pace
        ? {
            pace: (call, urgent) =>
              call === 'post' && previous
                ? requestAfter(previous, (now) => pace(call, index, now), urgent)
                : pace(call, index, urgent),
          }
        : {}),
      post: async (payload) => {
        if (previous) await previous;
        const ref = await this.#opts.post(payload);
        settled();
        return ref;
      },
      edit: this.#opts.edit,
      intervalMs: this.#opts.intervalMs,
      clock: this.#opts.clock,
      key: this.#opts.key,
      onError: this.#opts.onError,
    });
    const part: Part<P, R> = { editor, start, end, markdown, last, final, posted, settle: settled };
    this.#parts[index] = part;
    if (!(last && this.#holdLast)) editor.set(this.#payload(part, index));
  }

  /** A message the text does not need: delete it, or blank it when deleting is not offered. */
  async #retire(part: Part<P, R>): Promise<void> {
    if (!this.#opts.remove) {
      part.markdown = EMPTY_PART_TEXT;
      part.editor.set(this.#transform(EMPTY_PART_TEXT, { index: -1, last: false, final: true }));
      await part.editor.flush(this.#opts.finalDeadlineMs);
      part.editor.dispose();
      return;
    }
    // Let a post in flight settle so there is a reference to delete; nothing else is sent to it.
    part.editor.dispose();
    part.settle();
    await part.editor.settled();
    const ref = part.editor.ref;
    if (ref === undefined) return;
    try {
      // Part of the final state: a rate-limited or failing delete is retried like the final edits,
      // else the surplus message stays, showing text (and controls) the answer no longer has.
      await landFinal(() => this.#opts.remove!(ref), this.#opts.finalDeadlineMs);
    } catch (error) {
      this.#opts.onError?.(error, 'remove');
    }
  }
}
