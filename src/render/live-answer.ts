/**
 * Streams one Markdown answer into as many platform messages as it needs, and reconciles them with
 * whatever text comes next: longer (streaming), rewritten (a retry, a final that changed what
 * streamed), or shorter.
 *
 * The text is split with `planSplit`; a part that is complete (not the last) is frozen while the
 * text only grows, so streaming never moves a boundary the user already saw. Each part is a
 * ThrottledEditor; overflow is posted as follow-up messages, in order. Whenever a new text does not
 * start with the source of a frozen part, that part and everything after it are re-split from the
 * last part that is still a true prefix: parts are edited only where their content changed and
 * messages the text no longer needs are deleted (and forgotten, so nothing is sent to them later).
 * Every message is ≤ maxChars.
 *
 * No line ever shows in two messages at once: when a new text moves lines from one message to
 * another (a part froze at a boundary before the lines it showed; the final text linked citations
 * and every line grew, or dropped markers and every line shrank), the message that gains them waits
 * until the one that loses them shows its new content (or is deleted). Each part knows the source
 * lines it should show and the lines it may show now (what was sent or is about to be); a part whose
 * new content takes lines another message may still show is held until that message's edit landed.
 */
import { requestAfter } from './channel-pacer.js';
import { landFinal } from './delivery.js';
import { planSplit, type SplitContext, splitContextAt } from './split-text.js';
import { ThrottledEditor } from './throttled-editor.js';
import type { LiveAnswerOptions, Part, PartPlace, Sent } from './answer-parts.js';
import { type LineRange, lineCounter, NO_LINES, overlaps, sameLines, shown, span } from './answer-lines.js';

/** A post withdrawn before it was made: the part was retired while it waited (not a failure). */
const WITHDRAWN = new Error('message retired before it was posted');

/** What a surplus message shows when the platform offers no way to delete it. */
export const EMPTY_PART_TEXT = '…';

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
  /** Parts being deleted or blanked: their lines may show until that landed. */
  readonly #leaving = new Set<Part<P, R>>();
  /** Numbers the payloads handed to editors. */
  #seq = 0;

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
    const parts = this.#parts;
    const last = parts.at(-1);
    const before = parts.slice(0, -1);
    // A last part that must give lines to the part before it shows its trimmed text first (still
    // with Stop): its closing content waits for the others, which wait for those lines.
    if (last && before.some((part) => overlaps(shown(last), part.lines))) {
      const index = parts.length - 1;
      this.#hand(last, this.#transform(last.markdown, { index, last: true, final: false }), last.lines);
      before.push(last);
    }
    await this.#landInOrder(before);
    if (last) {
      this.#hand(last, this.#payload(last, parts.length - 1), last.lines);
      await this.#landInOrder([last]);
    }
    await Promise.all(this.#retiring);
  }

  /**
   * Lands `parts` in the order their lines allow: each round flushes the parts that are free to go
   * (not held, and the message before them exists), which frees the lines the held ones wait for.
   * When none can go once the deletions under way are done (a loser whose edit gave up), the held
   * parts go anyway: the final must land.
   */
  async #landInOrder(parts: Part<P, R>[]): Promise<void> {
    const landed = new Set<Part<P, R>>();
    const ready = () => parts.filter((part) => !landed.has(part) && !part.held && this.#mayPost(part));
    for (;;) {
      let next = ready();
      if (next.length === 0) {
        await Promise.all(this.#retiring);
        this.#releaseHeld();
        next = ready();
      }
      if (next.length === 0) {
        const waiting = parts.filter((part) => !landed.has(part));
        if (waiting.length === 0) return;
        const held = waiting.filter((part) => part.held);
        for (const part of held) this.#releaseHeld(part);
        // Nothing held: what is left waits for a message outside `parts`; its flush waits for it.
        next = held.length > 0 ? ready() : waiting;
        if (next.length === 0) next = waiting;
      }
      for (const part of next) landed.add(part);
      await Promise.all(next.map((part) => this.#land(part)));
      this.#releaseHeld();
    }
  }

  /** The part exists, or the one before it does (or gave up): its post would not wait. */
  #mayPost(part: Part<P, R>): boolean {
    if (part.settled || part.editor.posted) return true;
    const index = this.#parts.indexOf(part);
    const previous = index > 0 ? this.#parts[index - 1] : undefined;
    return !previous || previous.settled;
  }

  async #land(part: Part<P, R>): Promise<void> {
    await part.editor.flush(this.#opts.finalDeadlineMs);
    // Landed or given up: the parts after it no longer wait for it, nor for its lines.
    if (!part.editor.delivered) part.showing = part.latest ?? part.showing;
    part.settle();
  }

  /** Re-sets the content of the last part (its controls changed) without changing the text. */
  refresh(): void {
    const last = this.#parts.at(-1);
    if (!last) return;
    this.#hand(last, this.#payload(last, this.#parts.length - 1), last.lines);
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
    // The source lines of each new part, counted from the last kept part's end.
    const counter = lineCounter(text, from, keep > 0 ? this.#parts[keep - 1]!.endLine : 0);
    const ranges = plan.map((chunk) => {
      const range = counter.range(chunk.start, chunk.end);
      return { range, endLine: counter.at(chunk.end) };
    });
    // Parts kept from before may have been the last one: their controls change.
    for (let i = 0; i < keep; i++) this.#show(i, this.#parts[i]!.markdown, count, final);
    plan.forEach((chunk, i) => {
      const index = keep + i;
      const existing = this.#parts[index];
      const { range, endLine } = ranges[i]!;
      if (existing) {
        existing.start = chunk.start;
        existing.end = chunk.end;
        existing.lines = range;
        existing.endLine = endLine;
      }
      this.#show(index, chunk.text, count, final, chunk.start, chunk.end, range, endLine);
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

  #show(
    index: number,
    markdown: string,
    count: number,
    final: boolean,
    start = 0,
    end = 0,
    lines: LineRange = NO_LINES,
    endLine = 0,
  ): void {
    const last = index === count - 1;
    const existing = this.#parts[index];
    if (existing) {
      const moved = existing.latest !== undefined && !sameLines(existing.latest, existing.lines);
      if (existing.markdown === markdown && existing.last === last && existing.final === final && !moved)
        return;
      existing.markdown = markdown;
      existing.last = last;
      existing.final = final;
      if (!(last && this.#holdLast)) this.#hand(existing, this.#payload(existing, index), existing.lines);
      return;
    }
    const previous = this.#parts[index - 1]?.posted;
    let settled!: () => void;
    const posted = new Promise<void>((resolve) => {
      settled = resolve;
    });
    const settle = () => {
      part.settled = true;
      settled();
    };
    const pace = this.#opts.pace;
    const hold = this.#opts.hold;
    const key = this.#opts.key ?? ((payload: P) => JSON.stringify(payload));
    const part = {
      start,
      end,
      lines,
      endLine,
      showing: NO_LINES,
      flying: undefined,
      latest: undefined,
      settled: false,
      markdown,
      last,
      final,
      posted,
      settle,
    } as unknown as Part<P, R>;
    part.editor = new ThrottledEditor<Sent<P>, R>({
      // A follow-up is posted only after the message before it, so the thread reads in order.
      ...(pace
        ? {
            pace: (call, urgent) =>
              call === 'post' && previous
                ? requestAfter(previous, (now) => pace(call, index, now), urgent)
                : pace(call, index, urgent),
          }
        : {}),
      post: async (sent) => {
        if (previous) await previous;
        // Deleted before it was ever posted (it waited for the message before it): never post it.
        if (this.#leaving.has(part)) throw WITHDRAWN;
        const ref = await this.#send(part, sent, () => this.#opts.post(sent.payload));
        part.settle();
        return ref;
      },
      edit: (ref, sent) => this.#send(part, sent, () => this.#opts.edit(ref, sent.payload)),
      ...(hold ? { hold: (sent: Sent<P>) => hold(index, sent.payload) } : {}),
      ...(this.#opts.refresh ? { refresh: this.#opts.refresh } : {}),
      intervalMs: this.#opts.intervalMs,
      clock: this.#opts.clock,
      key: (sent) => key(sent.payload),
      onError: (error, call) => {
        if (error !== WITHDRAWN) this.#opts.onError?.(error, call);
      },
    });
    this.#parts[index] = part;
    if (!(last && this.#holdLast)) this.#hand(part, this.#payload(part, index), lines);
  }

  /**
   * Gives `payload` (showing `range`) to the part's editor, unless another message may still show
   * some of those lines: then it is held until they are clear (`force`: hand it anyway).
   */
  #hand(part: Part<P, R>, payload: P, range: LineRange, force = false): void {
    if (!force && this.#blocked(part, range)) {
      part.held = { payload, range };
      return;
    }
    part.held = undefined;
    part.latest = range;
    part.editor.set({ payload, seq: ++this.#seq, range });
    // The platform already shows this content (an unchanged payload is not sent again).
    if (part.editor.delivered) part.showing = range;
  }

  /** Whether a message other than `part` may show any of `range` now. */
  #blocked(part: Part<P, R>, range: LineRange): boolean {
    if (range.to <= range.from) return false;
    for (const other of this.#parts) if (other !== part && overlaps(shown(other), range)) return true;
    for (const other of this.#leaving) if (other !== part && overlaps(shown(other), range)) return true;
    return false;
  }

  /** One post or edit of the part: while in flight its lines may show; once landed, only its lines. */
  async #send<X>(part: Part<P, R>, sent: Sent<P>, call: () => Promise<X>): Promise<X> {
    part.flying = sent.range;
    try {
      const result = await call();
      part.showing = sent.range;
      return result;
    } catch (error) {
      // Whether a failed call changed the message is unknown: either content may show.
      part.showing = span(part.showing, sent.range);
      throw error;
    } finally {
      part.flying = undefined;
      this.#releaseHeld();
    }
  }

  /** Hands held content whose lines are clear now (`only`: that part, whatever its lines). */
  #releaseHeld(only?: Part<P, R>): void {
    if (only) {
      if (only.held) this.#hand(only, only.held.payload, only.held.range, true);
      return;
    }
    for (const part of this.#parts) {
      if (part.held && !this.#blocked(part, part.held.range))
        this.#hand(part, part.held.payload, part.held.range);
    }
  }

  /** A message the text does not need: delete it, or blank it when deleting is not offered. */
  async #retire(part: Part<P, R>): Promise<void> {
    // Its lines may show until it is deleted or blanked: the parts that take them wait. What it
    // was last given is never sent now (it is deleted, or given the blank text instead).
    part.held = undefined;
    part.latest = undefined;
    this.#leaving.add(part);
    try {
      await this.#empty(part);
    } finally {
      part.showing = NO_LINES;
      part.latest = undefined;
      this.#leaving.delete(part);
      this.#releaseHeld();
    }
  }

  async #empty(part: Part<P, R>): Promise<void> {
    if (!this.#opts.remove) {
      part.markdown = EMPTY_PART_TEXT;
      const blank = this.#transform(EMPTY_PART_TEXT, { index: -1, last: false, final: true });
      this.#hand(part, blank, NO_LINES, true);
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
