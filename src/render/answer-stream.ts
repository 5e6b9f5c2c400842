/**
 * A platform's native answer stream as an optional capability of the one turn renderer (Slack:
 * `chat.startStream` / `appendStream` / `stopStream` with task cards). The adapter gives only the
 * primitive — start, append, stop, its payload builders and how to read its refusals; what goes into
 * the stream and when is decided here, the same way for every turn:
 *
 * - the stream is the first message of the answer (the "head"): it starts with the first task card
 *   or the first answer text, shows the steps as task cards and part 0 of the answer (LiveAnswer
 *   splits; overflow parts are ordinary posted messages);
 * - its text only grows: each call sends the task cards that changed and the Markdown appended since
 *   the last one, paced like any message (the first answer text at once) and by content: an append
 *   waits until enough text is new (`holdMs`), so a slow model costs no more calls than a fast one;
 *   once part 0 freezes at a
 *   boundary before the end of what it streamed (those lines move to the next message), the stream
 *   ends and the head is edited as an ordinary message from then on;
 * - the last chunks travel in the stop, with the closing controls (footer, feedback) when the head
 *   is the answer's last part: an answer's final text begins with what streamed (citations are
 *   linked as they stream, live-citations.ts), so its References go in the stop too; a final text
 *   that rewrote what streamed is put in place right after the stop by an ordinary edit that keeps
 *   the task cards;
 * - a stream carries no buttons: while it runs, its first task card says how to stop it (the
 *   adapter's `stopHint`, e.g. "reply stop"). Streamed text cannot be taken back, but a card's state
 *   can change in the stream's own calls: the stop that ends the stream turns the card into its
 *   closing state (the answer ended), so the hint costs no call of its own, in any number of
 *   streams at once, and no finished answer ever says "reply stop";
 * - a stream that cannot go on (expired) turns into an ordinary message for the rest of this turn;
 *   a platform that refuses streaming before anything showed gets the ordinary path for this turn
 *   (the adapter remembers a workspace-wide refusal); a refused channel is the renderer's refusal.
 */
import type { PaceRequest } from './channel-pacer.js';
import type { WriteKind } from './pace-rules.js';
import type { Source } from './events.js';
import type { EditorClock } from './editor-clock.js';
import type { AnswerControls, MessageWriter } from './message-writer.js';
import { ThrottledEditor } from './throttled-editor.js';
import type { StepView } from './view.js';

/** What one stream call adds: the task cards that are new or changed, and the Markdown appended. */
export interface StreamChunks<T> {
  tasks: T[];
  text: string;
}

/** Why a stream call was refused: this stream cannot go on, or the platform never streams here. */
export type StreamRefusal = 'turn' | 'workspace';

/** The native stream primitive an adapter implements. Failures are `DeliveryError`s (delivery.ts). */
export interface AnswerStream<P, R, T> {
  start(chunks: StreamChunks<T>): Promise<R>;
  append(ref: R, chunks: StreamChunks<T>): Promise<void>;
  /** Ends the stream with its last chunks; `controls` (footer, feedback) go under the text when given. */
  stop(ref: R, chunks: StreamChunks<T>, controls: AnswerControls | undefined): Promise<void>;
  /** A step as a task card. */
  task(step: StepView, sources: Source[]): T;
  /** Identity of a task card: an unchanged key is not sent again (default: JSON). */
  taskKey?(task: T): string;
  /**
   * The Markdown the stream may show so far (mentions defused; a trailing fragment that could still
   * become something else held back until `final`). Must keep what it returned earlier as a prefix.
   */
  text(markdown: string, final: boolean): string;
  /**
   * The streamed message as an ordinary message (its edit after the stream: a rewritten final text,
   * or a stream that expired), keeping the task cards the stream showed.
   */
  message(markdown: string, controls: AnswerControls, tasks: T[]): P;
  /**
   * The stream cannot carry a Stop button: a task card that tells how to stop the answer instead
   * (`running`: the first card of the stream while it runs, in the asker's words), and the same
   * card's closing state (`running` false), which the stop carries. Undefined: none.
   */
  stopHint?(running: boolean): T | undefined;
  /** A failed call that means streaming cannot go on, or undefined for an ordinary failure. */
  refusal(error: unknown): StreamRefusal | undefined;
  /** Streaming was refused (the adapter logs it and remembers a workspace-wide refusal). */
  refused?(scope: StreamRefusal, error: unknown): void;
}

/** What the head should show: the task cards and part 0 of the answer, with its controls. */
export interface HeadContent<T> {
  tasks: T[];
  markdown: string;
  controls: AnswerControls;
  /** The answer is final: this call ends the stream. */
  final: boolean;
  /** The head is the answer's last part (absent: it is); otherwise later messages follow it. */
  last?: boolean;
}

export interface StreamHeadOptions<P, R, T> {
  stream: AnswerStream<P, R, T>;
  /** The renderer's writer (counted, stops at a refusal) for the head as an ordinary message. */
  writer: MessageWriter<P, R>;
  /** Wraps every stream call like the writer's calls (counts it, stops at a channel refusal). */
  guard: <X>(call: () => Promise<X>) => Promise<X>;
  /** The head as an ordinary answer part, for a turn that never streamed. */
  plain: (markdown: string, controls: AnswerControls) => P;
  intervalMs: number;
  clock?: EditorClock;
  /** The channel's pace (channel-pacer.ts) for the task-cards-only calls. */
  pace?: (kind: WriteKind, urgent: boolean) => PaceRequest;
  onError?: (error: unknown, call: 'post' | 'edit') => void;
  /** Streaming was refused: the renderer draws the steps its ordinary way from now on when `!shown`. */
  onRefused: (scope: StreamRefusal, shown: boolean) => void;
  /** Brings the task cards up to date just before a call reads them (throttled-editor.ts). */
  refresh?: () => void;
}

type Mode = 'stream' | 'message' | 'plain';

/**
 * Text an append waits for: as much as the stream already shows, at least the Slack SDK's default
 * stream buffer (256 characters) and at most 1,024. Early on that is a line or two, as often as the
 * interval allows; later, when the reader is far behind the text, fewer and larger appends — each
 * one no bigger than what the reader has not finished yet. The same number of calls per answer
 * whatever the model's speed (about three appends for 2,000 characters).
 */
export const STREAM_APPEND_MIN_CHARS = 256;
export const STREAM_APPEND_MAX_CHARS = 1_024;
/** Longest an append waits for text (from the end of the last call): a slow model still shows progress. */
export const STREAM_MAX_HOLD_MS = 8_000;

/** The answer's first message over a native stream (see the file comment). */
export class StreamHead<P, R, T> {
  readonly #o: StreamHeadOptions<P, R, T>;
  readonly #taskKey: (task: T) => string;
  /** Paces the stream while it shows task cards only (part 0's own editor takes over with text). */
  readonly #tasksOnly: ThrottledEditor<HeadContent<T>, R>;
  #mode: Mode = 'stream';
  #textStarted = false;
  /** The stream shows the stop hint's card as running: the stop that ends it closes the card. */
  #hinted = false;
  /** What the platform shows: the key of each task card (steps only ever append), and the text. */
  readonly #sentTasks: string[] = [];
  #sentText = '';
  /** Length of the Markdown the last stream call was made from (what the stream shows, in source). */
  #sentSource = 0;

  constructor(options: StreamHeadOptions<P, R, T>) {
    this.#o = options;
    // A card object is keyed once: the renderer keeps the object of a step that did not change.
    const keyOf = options.stream.taskKey?.bind(options.stream) ?? ((task: T) => JSON.stringify(task));
    const keys = new WeakMap<object, string>();
    this.#taskKey = (task) => {
      if (typeof task !== 'object' || task === null) return keyOf(task);
      let key = keys.get(task);
      if (key === undefined) {
        key = keyOf(task);
        keys.set(task, key);
      }
      return key;
    };
    this.#tasksOnly = new ThrottledEditor<HeadContent<T>, R>({
      post: (content) => this.#send(undefined, content),
      edit: (ref, content) => this.#send(ref, content).then(() => undefined),
      intervalMs: options.intervalMs,
      ...(options.clock ? { clock: options.clock } : {}),
      key: (content) => this.key(content),
      ...(options.onError ? { onError: options.onError } : {}),
      ...(options.refresh ? { refresh: options.refresh } : {}),
      ...(options.pace ? { pace: (call, urgent) => options.pace!(this.kind(call), urgent) } : {}),
    });
  }

  /** What the head's next call is for the channel's pacer: a stream call while it streams. */
  kind(call: 'post' | 'edit'): WriteKind {
    return this.#mode === 'stream' ? 'stream' : call;
  }

  /**
   * How long after the last call an append of `content` may wait (0: it goes at the interval): text
   * only grew, and by less than the stream's next step (see STREAM_APPEND_MIN_CHARS). Task cards,
   * a moved boundary and anything but a running stream go at the interval.
   */
  holdMs(content: HeadContent<T>): number {
    if (this.#mode !== 'stream' || content.final || content.last === false) return 0;
    const grown = content.markdown.length - this.#sentSource;
    if (grown <= 0) return 0;
    const due = Math.min(STREAM_APPEND_MAX_CHARS, Math.max(STREAM_APPEND_MIN_CHARS, this.#sentSource));
    if (grown >= due) return 0;
    const tasks = content.tasks;
    for (let i = 0; i < tasks.length; i++) if (this.#sentTasks[i] !== this.#taskKey(tasks[i]!)) return 0;
    return STREAM_MAX_HOLD_MS;
  }

  /** The steps show in the stream (as task cards), not in a steps message. */
  get showsSteps(): boolean {
    return this.#mode !== 'plain';
  }

  /** Identity of a content: equal keys are not sent again. */
  key(content: HeadContent<T>): string {
    const tasks = content.tasks.map((task) => this.#taskKey(task)).join('\u0001');
    const { stop, feedback, footer } = content.controls;
    const last = content.last !== false;
    return `${content.final}${last}${stop}${feedback}${footer ?? ''}\u0000${tasks}\u0000${content.markdown}`;
  }

  /** The task cards before any answer text (the stream starts with the first one). */
  setTasks(tasks: T[]): void {
    if (this.#textStarted || this.#mode !== 'stream' || tasks.length === 0) return;
    this.#tasksOnly.set({ tasks, markdown: '', controls: NO_CONTROLS, final: false });
  }

  /** Part 0's first post: the stream started with task cards goes on with the text, else it starts. */
  async post(content: HeadContent<T>): Promise<R> {
    this.#textStarted = true;
    this.#tasksOnly.dispose();
    await this.#tasksOnly.settled();
    return this.#send(this.#tasksOnly.ref, content);
  }

  async edit(ref: R, content: HeadContent<T>): Promise<void> {
    await this.#send(ref, content);
  }

  /** Ends a stream that showed task cards but never any answer text (the final lands or is logged). */
  async finish(tasks: T[]): Promise<void> {
    if (this.#textStarted) return;
    await this.#tasksOnly.settled();
    if (!this.#tasksOnly.posted) {
      this.#tasksOnly.dispose();
      return;
    }
    this.#tasksOnly.set({ tasks, markdown: '', controls: NO_CONTROLS, final: true });
    await this.#tasksOnly.flush();
    this.#tasksOnly.dispose();
  }

  /** One call on the head, whatever it is now: stream start/append/stop, or an ordinary post/edit. */
  async #send(ref: R | undefined, content: HeadContent<T>): Promise<R> {
    const { writer, stream } = this.#o;
    if (this.#mode === 'plain') {
      const payload = this.#o.plain(content.markdown, content.controls);
      if (ref === undefined) return writer.post(payload);
      await writer.edit(ref, payload);
      return ref;
    }
    if (this.#mode === 'message') return this.#asMessage(ref, content);
    // Never start a stream only to end it: a final with nothing shown yet is one ordinary post.
    if (ref === undefined && content.final) return this.#asMessage(undefined, content);
    try {
      return await this.#stream(ref, content);
    } catch (err) {
      const scope = stream.refusal(err);
      if (!scope) throw err;
      stream.refused?.(scope, err);
      this.#o.onRefused(scope, ref !== undefined);
      if (ref !== undefined) return this.#editAfterStream(ref, content);
      // Nothing streamed yet: this turn is drawn the ordinary way (steps message, answer parts).
      this.#mode = 'plain';
      if (!content.markdown) throw err;
      return writer.post(this.#o.plain(content.markdown, content.controls));
    }
  }

  async #stream(ref: R | undefined, content: HeadContent<T>): Promise<R> {
    const { stream, guard } = this.#o;
    const text = stream.text(content.markdown, content.final);
    if (ref === undefined) {
      const chunks = this.#chunks(content.tasks, text);
      // The hint is the stream's first card: the steps' cards and the text follow it.
      const hint = stream.stopHint?.(true);
      const opening = hint === undefined ? chunks : { ...chunks, tasks: [hint, ...chunks.tasks] };
      const started = await guard(() => stream.start(opening));
      this.#hinted = hint !== undefined;
      this.#commit(content.tasks, text);
      this.#sentSource = content.markdown.length;
      return started;
    }
    if (!content.final) {
      if (!text.startsWith(this.#sentText) && content.last === false) {
        // Streamed text cannot be taken back: once the head froze before the end of what it
        // streamed (those lines now belong to the next message, which waits for them), the stream
        // ends here and the head is an ordinary message from now on, edited to what it should show.
        // A rewrite of a head that is still the last part waits for the final, as before.
        await guard(() =>
          stream.stop(ref, this.#closing(this.#chunks(content.tasks, this.#sentText)), undefined),
        );
        this.#hinted = false;
        this.#commit(content.tasks, this.#sentText);
        return this.#editAfterStream(ref, content);
      }
      const chunks = this.#chunks(content.tasks, text);
      if (chunks.tasks.length > 0 || chunks.text) {
        await guard(() => stream.append(ref, chunks));
        this.#commit(content.tasks, text);
        this.#sentSource = content.markdown.length;
      }
      return ref;
    }
    // The final: its last chunks go in the stop, with the stop hint's card closed. Only a text that
    // rewrote what streamed (not an answer's: its citations were linked as it streamed) is put in
    // place by an ordinary edit right after, with the controls and task cards (the stop already
    // holds the whole text, should that edit never land).
    const extendsStream = text.startsWith(this.#sentText);
    const last = extendsStream ? text : this.#sentText;
    const closing = extendsStream && hasClosing(content.controls) ? content.controls : undefined;
    await guard(() => stream.stop(ref, this.#closing(this.#chunks(content.tasks, last)), closing));
    this.#hinted = false;
    this.#commit(content.tasks, last);
    this.#mode = 'message';
    if (!extendsStream) await this.#editAfterStream(ref, content);
    return ref;
  }

  /**
   * The ordinary edit a stream call leaves to do (after a stop, or once streaming was refused): a
   * platform call apart from the stream's, so it waits for a slot of its own kind (Slack counts
   * chat.update per workspace, apart from the stream methods).
   */
  async #editAfterStream(ref: R, content: HeadContent<T>): Promise<R> {
    const slot = await this.#o.pace?.('edit', true).slot;
    try {
      return await this.#asMessage(ref, content);
    } finally {
      slot?.done();
    }
  }

  /** A stop's chunks: the stop hint's card, if the stream shows it, in its closing state first. */
  #closing(chunks: StreamChunks<T>): StreamChunks<T> {
    if (!this.#hinted) return chunks;
    const closed = this.#o.stream.stopHint?.(false);
    return closed === undefined ? chunks : { ...chunks, tasks: [closed, ...chunks.tasks] };
  }

  /** The head as an ordinary message (its stream is over, or never started), task cards kept. */
  async #asMessage(ref: R | undefined, content: HeadContent<T>): Promise<R> {
    this.#mode = 'message';
    const payload = this.#o.stream.message(content.markdown, content.controls, content.tasks);
    if (ref === undefined) return this.#o.writer.post(payload);
    await this.#o.writer.edit(ref, payload);
    return ref;
  }

  #chunks(tasks: T[], text: string): StreamChunks<T> {
    const changed = tasks.filter((task, i) => this.#sentTasks[i] !== this.#taskKey(task));
    const grown = text.length > this.#sentText.length && text.startsWith(this.#sentText);
    return { tasks: changed, text: grown ? text.slice(this.#sentText.length) : '' };
  }

  #commit(tasks: T[], text: string): void {
    for (const [i, task] of tasks.entries()) this.#sentTasks[i] = this.#taskKey(task);
    if (text.startsWith(this.#sentText)) this.#sentText = text;
  }
}

const NO_CONTROLS: AnswerControls = { stop: false, feedback: false };

function hasClosing(controls: AnswerControls): boolean {
  return controls.feedback || controls.footer !== undefined;
}
