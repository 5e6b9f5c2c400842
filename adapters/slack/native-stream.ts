/**
 * Slack's native AI streaming for one answer: `chat.startStream`, then `chat.appendStream` with the
 * new Markdown and a `task_update` chunk per changed step (each search becomes a task card with its
 * sources), then `chat.stopStream` with the last pending chunks, the footer and feedback buttons.
 * Every call on the message — start, appends, stop and a final `chat.update` — goes through the
 * shared ThrottledEditor, so they are coalesced and spaced at least one interval apart; the one
 * exception is the first answer text, which goes out at once (SPEC §8) even right after a task-card
 * append (`chat.appendStream` is Tier 4). A refusal (`feature_not_enabled`, `unknown_method`,
 * `message_not_in_streaming_state` …) calls `onRefused` so the sink falls back to post + update.
 */
import type { Logger } from '../../src/logger.js';
import { isRetryable } from '../../src/render/delivery.js';
import { type EditorClock, ThrottledEditor } from '../../src/render/throttled-editor.js';
import type { Source } from '../../src/render/events.js';
import type { StepView } from '../../src/render/view.js';
import { stepLabel } from '../../src/render/step-text.js';
import { neutraliseMentions, truncate } from './markdown.js';
import { type Block, renderAnswerChunk } from './render-blocks.js';
import {
  STREAMING_REFUSALS,
  type SlackClient,
  slackDeliveryError,
  slackErrorCode,
  slackWrite,
} from './slack-client.js';

/** Task card titles and details are short UI strings; keep them compact. */
const MAX_TASK_TITLE = 150;
const MAX_TASK_DETAILS = 500;
/** At most this many sources per task card (the search tool returns at most 5). */
const MAX_TASK_SOURCES = 5;

export interface StreamTarget {
  channel: string;
  threadTs: string;
  team: string;
  userId: string;
}

export interface StreamPayload {
  tasks: TaskChunk[];
  /** The Markdown the stream should show so far (append-only while streaming). */
  text: string;
}

/**
 * What the editor sends: a stream payload plus the closing phase. `stop` ends the stream with the
 * pending chunks; `replace` rewrites the stopped message with the final text (when the final answer
 * is not an extension of what was streamed, e.g. its citations became links).
 */
interface EditorPayload extends StreamPayload {
  phase?: 'stop' | 'replace';
}

export interface StreamClosing {
  blocks: Block[];
  locale: 'en' | 'zh';
  conversationId: string;
  footer?: string;
  feedback: boolean;
}

interface TaskChunk {
  type: 'task_update';
  id: string;
  title: string;
  status: 'pending' | 'in_progress' | 'complete' | 'error';
  details?: string;
  sources?: { type: 'url'; url: string; text: string }[];
}

const TASK_STATUS: Record<StepView['status'], TaskChunk['status']> = {
  pending: 'pending',
  running: 'in_progress',
  done: 'complete',
  failed: 'error',
  skipped: 'complete',
  info: 'complete',
};

/**
 * A search step's sources: `[n]` markers in its body matched to the answer's numbered sources (known
 * once the answer is final), plus any links written in the body itself.
 */
function sourcesOf(body: string, numbered: Source[]): TaskChunk['sources'] {
  const found = new Map<string, string>();
  for (const m of body.matchAll(/^\[(\d+)\]/gm)) {
    const source = numbered.find((s) => s.n === Number(m[1]));
    if (source) found.set(source.url, truncate(source.title || source.url, MAX_TASK_TITLE));
  }
  for (const m of body.matchAll(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)|(https?:\/\/[^\s)>\]]+)/g)) {
    const url = m[2] ?? m[3];
    if (url && !found.has(url)) found.set(url, truncate(m[1] ?? url, MAX_TASK_TITLE));
  }
  const list = [...found]
    .slice(0, MAX_TASK_SOURCES)
    .map(([url, text]) => ({ type: 'url' as const, url, text: neutraliseMentions(text) }));
  return list.length > 0 ? list : undefined;
}

export function toTaskChunk(step: StepView, sources: Source[] = []): TaskChunk {
  const chunk: TaskChunk = {
    type: 'task_update',
    id: step.id,
    // Titles (search queries) and details (reasoning, snippets) are model or web text: defuse mentions.
    title: truncate(neutraliseMentions(stepLabel(step)), MAX_TASK_TITLE),
    status: TASK_STATUS[step.status],
  };
  if (step.body.trim()) chunk.details = truncate(neutraliseMentions(step.body.trim()), MAX_TASK_DETAILS);
  if (step.kind === 'search' || step.kind === 'search-results') {
    const found = sourcesOf(step.body, sources);
    if (found) chunk.sources = found;
  }
  return chunk;
}

/** What a step's task chunk was built from, so an unchanged step keeps its chunk (and key). */
interface BuiltChunk {
  step: Pick<StepView, 'id' | 'kind' | 'title' | 'body' | 'status'>;
  sources: Source[] | undefined;
  chunk: TaskChunk;
}

const builtChunks = new WeakMap<StepView, BuiltChunk>();
const NO_SOURCES: Source[] = [];
/** Change keys of the chunks `taskChunks` built: one revision per distinct chunk. */
const chunkKeys = new WeakMap<object, string>();
let chunkRevision = 0;

/**
 * The task chunks of a turn's steps, for every frame: a step's chunk is rebuilt only when the step
 * changed (or, for a search, the answer's sources did), and a rebuilt chunk equal to the one before
 * is not a change. So a frame costs the steps that changed, and `chunkKey` tells a changed chunk
 * by its object, without serialising every task every frame.
 */
export function taskChunks(steps: StepView[], sources: Source[] = NO_SOURCES): TaskChunk[] {
  return steps.map((step) => {
    const usesSources = step.kind === 'search' || step.kind === 'search-results';
    const built = builtChunks.get(step);
    const seen = built?.step;
    if (
      built &&
      seen!.id === step.id &&
      seen!.kind === step.kind &&
      seen!.title === step.title &&
      seen!.body === step.body &&
      seen!.status === step.status &&
      (!usesSources || built.sources === sources)
    )
      return built.chunk;
    const fresh = toTaskChunk(step, sources);
    const same = built && JSON.stringify(built.chunk) === JSON.stringify(fresh);
    const chunk = same ? built.chunk : fresh;
    if (!same) chunkKeys.set(chunk, `${chunk.id}\u0002${++chunkRevision}`);
    const { id, kind, title, body, status } = step;
    builtChunks.set(step, { step: { id, kind, title, body, status }, sources, chunk });
    return chunk;
  });
}

/**
 * A task chunk's change key: chunks from `taskChunks` carry a revision (a rebuilt, different chunk
 * gets a new one); any other chunk object is keyed by its content.
 */
function chunkKey(chunk: TaskChunk): string {
  return chunkKeys.get(chunk) ?? JSON.stringify(chunk);
}

export class NativeStream {
  readonly #editor: ThrottledEditor<EditorPayload, string>;
  /** What Slack already shows: task keys by id and the streamed text. */
  readonly #sentTasks = new Map<string, string>();
  #sentText = '';
  #refused = false;
  /** The first answer text has been handed to the editor (sent with `setNow`). */
  #textStarted = false;
  /** How to close the stream (set by `finish`). */
  #closing: StreamClosing | undefined;
  /** The final text extends what was streamed (else the stopped message is replaced). */
  #finalExtends = true;
  /** A closing call failed; its Slack error code (or the message). */
  #closeError: string | undefined;

  constructor(
    private readonly client: SlackClient,
    private readonly target: StreamTarget,
    intervalMs: number,
    private readonly logger: Logger,
    private readonly onRefused: (code: string) => void,
    clock?: EditorClock,
  ) {
    this.#editor = new ThrottledEditor<EditorPayload, string>({
      intervalMs,
      ...(clock ? { clock } : {}),
      post: (payload) => slackWrite(() => this.#start(payload)),
      edit: (ts, payload) => slackWrite(() => this.#edit(ts, payload)),
      // Task keys are per chunk object (taskChunks keeps unchanged ones); the text is compared as it is.
      key: (payload) =>
        `${payload.phase ?? ''}\u0000${payload.tasks.map(chunkKey).join('\u0001')}\u0000${payload.text}`,
      onError: (err) => this.#onError(err),
    });
  }

  get refused(): boolean {
    return this.#refused;
  }

  get ts(): string | undefined {
    return this.#editor.ref;
  }

  /** The text actually on Slack so far. */
  get sentText(): string {
    return this.#sentText;
  }

  set(payload: StreamPayload): void {
    if (this.#refused) return;
    // The first answer text must not wait behind the interval a task-card append started.
    if (!this.#textStarted && payload.text) {
      this.#textStarted = true;
      this.#editor.setNow(payload);
    } else {
      this.#editor.set(payload);
    }
  }

  #chunks(payload: StreamPayload): object[] {
    const chunks: object[] = [];
    for (const task of payload.tasks) {
      if (this.#sentTasks.get(task.id) !== chunkKey(task)) chunks.push(task);
    }
    if (payload.text.startsWith(this.#sentText) && payload.text.length > this.#sentText.length) {
      chunks.push({ type: 'markdown_text', text: payload.text.slice(this.#sentText.length) });
    }
    return chunks;
  }

  #commit(payload: StreamPayload): void {
    for (const task of payload.tasks) this.#sentTasks.set(task.id, chunkKey(task));
    if (payload.text.startsWith(this.#sentText)) this.#sentText = payload.text;
  }

  async #start(payload: EditorPayload): Promise<string> {
    const direct = this.target.channel.startsWith('D');
    const result = await this.client.chat.startStream({
      channel: this.target.channel,
      thread_ts: this.target.threadTs,
      ...(direct ? {} : { recipient_user_id: this.target.userId, recipient_team_id: this.target.team }),
      task_display_mode: 'timeline',
      chunks: this.#chunks(payload) as never,
    });
    this.#commit(payload);
    return result.ts as string;
  }

  #edit(ts: string, payload: EditorPayload): Promise<void> {
    if (payload.phase === 'stop') return this.#closeCall(() => this.#stop(ts, payload));
    if (payload.phase === 'replace') return this.#closeCall(() => this.#replace(ts, payload));
    return this.#append(ts, payload);
  }

  async #append(ts: string, payload: StreamPayload): Promise<void> {
    const chunks = this.#chunks(payload);
    if (chunks.length === 0) return;
    await this.client.chat.appendStream({ channel: this.target.channel, ts, chunks: chunks as never });
    this.#commit(payload);
  }

  /**
   * The last pending chunks travel in `chat.stopStream` itself: no append right before the stop.
   * Decided here, with no call in flight, so `sentText` is exactly what Slack shows.
   */
  async #stop(ts: string, payload: StreamPayload): Promise<void> {
    this.#finalExtends = payload.text.startsWith(this.#sentText);
    const chunks = this.#chunks(this.#finalExtends ? payload : { ...payload, text: this.#sentText });
    await this.client.chat.stopStream({
      channel: this.target.channel,
      ts,
      ...(chunks.length > 0 ? { chunks: chunks as never } : {}),
      ...(this.#finalExtends && this.#closing ? { blocks: this.#closing.blocks as never } : {}),
    });
    this.#commit(payload);
  }

  async #replace(ts: string, payload: StreamPayload): Promise<void> {
    const closing = this.#closing;
    if (!closing) return;
    const final = renderAnswerChunk(payload.text, { ...closing, final: true });
    await this.client.chat.update({
      channel: this.target.channel,
      ts,
      text: final.text,
      blocks: final.blocks as never,
    });
  }

  /**
   * A closing call's failure is remembered for `finish` rather than reported as a streaming refusal
   * (that would switch streaming off for the workspace); a rate limit is rethrown so the editor
   * retries after the server's delay.
   */
  async #closeCall(call: () => Promise<void>): Promise<void> {
    try {
      await call();
    } catch (err) {
      const failure = slackDeliveryError(err);
      // Rate limits and outages: the editor sends the same close again until it lands.
      if (isRetryable(failure)) throw failure;
      this.#closeError = failure.code;
      this.logger.warn({ err: this.#closeError }, 'slack stream could not be finished');
    }
  }

  #onError(err: unknown): void {
    const code = slackErrorCode(err);
    if (code && STREAMING_REFUSALS.has(code)) {
      this.#refused = true;
      this.#editor.dispose();
      this.onRefused(code);
      return;
    }
    this.logger.warn({ err: code ?? String(err) }, 'slack stream call failed');
  }

  /**
   * Ends the stream: `chat.stopStream` carries whatever the last append did not (tasks, the rest of
   * the text) plus the closing blocks, no sooner than one interval after the previous call. When the
   * final text does not extend what was streamed (the final answer linked its citations), the
   * stopped message is replaced with the final text one interval later. Returns false when the
   * stream was refused and the caller must render the answer itself.
   */
  async finish(payload: StreamPayload, closing: StreamClosing): Promise<boolean> {
    this.#closing = closing;
    // Never start a stream just to end it: with nothing shown yet the caller posts the answer itself.
    if (!this.#editor.posted && payload.tasks.length === 0) {
      await this.#editor.flush(); // a start in flight may still create the message
      if (!this.#editor.posted) {
        this.#editor.dispose();
        return false;
      }
    }
    if (!this.#editor.posted) {
      // Start it with the task cards (the text follows in stopStream, one interval later).
      this.#editor.set({ tasks: payload.tasks, text: this.#sentText });
      await this.#editor.flush();
    }
    if (this.#refused || !this.#editor.ref) return this.#abandon();
    // Replaces any append still waiting for the interval: its chunks go out with the stop instead.
    this.#editor.set({ tasks: payload.tasks, text: payload.text, phase: 'stop' });
    await this.#editor.flush();
    if (this.#refused) return this.#abandon();
    if (!this.#finalExtends && this.#closeError === undefined) {
      this.#editor.set({ tasks: payload.tasks, text: payload.text, phase: 'replace' });
      await this.#editor.flush();
    }
    this.#editor.dispose();
    if (this.#closeError && STREAMING_REFUSALS.has(this.#closeError)) {
      this.#refused = true;
      await this.client.chat
        .delete({ channel: this.target.channel, ts: this.#editor.ref })
        .catch(() => undefined);
      return false;
    }
    return true;
  }

  #abandon(): false {
    this.#editor.dispose();
    return false;
  }

  /** Removes a half-streamed message after a refusal mid-stream (the sink re-renders it). */
  async discard(): Promise<void> {
    this.#editor.dispose();
    const ts = this.#editor.ref;
    if (ts) await this.client.chat.delete({ channel: this.target.channel, ts }).catch(() => undefined);
  }
}
