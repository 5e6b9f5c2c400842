/**
 * Slack's native AI streaming for one answer: `chat.startStream`, then `chat.appendStream` with the
 * new Markdown and a `task_update` chunk per changed step (each search becomes a task card with its
 * sources), then `chat.stopStream` with the footer and feedback buttons. Appends go through the shared
 * ThrottledEditor, so they are coalesced and spaced like edits. A refusal (`feature_not_enabled`,
 * `unknown_method`, `message_not_in_streaming_state` …) calls `onRefused` so the sink falls back to
 * post + update.
 */
import type { Logger } from '../../src/logger.js';
import { ThrottledEditor } from '../../src/render/throttled-editor.js';
import type { Source } from '../../src/render/events.js';
import type { StepView } from '../../src/render/view.js';
import { neutraliseMentions, truncate } from './markdown.js';
import { type Block, renderAnswerChunk } from './render-blocks.js';
import { STREAMING_REFUSALS, type SlackClient, slackErrorCode } from './slack-client.js';

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
    title: truncate(neutraliseMentions(step.title.replace(/\s+/g, ' ')), MAX_TASK_TITLE),
    status: TASK_STATUS[step.status],
  };
  if (step.body.trim()) chunk.details = truncate(neutraliseMentions(step.body.trim()), MAX_TASK_DETAILS);
  if (step.kind === 'search' || step.kind === 'search-results') {
    const found = sourcesOf(step.body, sources);
    if (found) chunk.sources = found;
  }
  return chunk;
}

export class NativeStream {
  readonly #editor: ThrottledEditor<StreamPayload, string>;
  /** What Slack already shows: task keys by id and the streamed text. */
  readonly #sentTasks = new Map<string, string>();
  #sentText = '';
  #refused = false;

  constructor(
    private readonly client: SlackClient,
    private readonly target: StreamTarget,
    intervalMs: number,
    private readonly logger: Logger,
    private readonly onRefused: (code: string) => void,
  ) {
    this.#editor = new ThrottledEditor<StreamPayload, string>({
      intervalMs,
      post: (payload) => this.#start(payload),
      edit: (ts, payload) => this.#append(ts, payload),
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
    if (!this.#refused) this.#editor.set(payload);
  }

  #chunks(payload: StreamPayload): object[] {
    const chunks: object[] = [];
    for (const task of payload.tasks) {
      const key = JSON.stringify(task);
      if (this.#sentTasks.get(task.id) !== key) chunks.push(task);
    }
    if (payload.text.startsWith(this.#sentText) && payload.text.length > this.#sentText.length) {
      chunks.push({ type: 'markdown_text', text: payload.text.slice(this.#sentText.length) });
    }
    return chunks;
  }

  #commit(payload: StreamPayload): void {
    for (const task of payload.tasks) this.#sentTasks.set(task.id, JSON.stringify(task));
    if (payload.text.startsWith(this.#sentText)) this.#sentText = payload.text;
  }

  async #start(payload: StreamPayload): Promise<string> {
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

  async #append(ts: string, payload: StreamPayload): Promise<void> {
    const chunks = this.#chunks(payload);
    if (chunks.length === 0) return;
    await this.client.chat.appendStream({ channel: this.target.channel, ts, chunks: chunks as never });
    this.#commit(payload);
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
   * Ends the stream. When `finalText` extends what was streamed, the rest is appended; otherwise (the
   * final answer linked its citations) the message is replaced with the final text afterwards.
   * Returns false when the stream was refused and the caller must render the answer itself.
   */
  async finish(
    payload: StreamPayload,
    closing: {
      blocks: Block[];
      locale: 'en' | 'zh';
      conversationId: string;
      footer?: string;
      feedback: boolean;
    },
  ): Promise<boolean> {
    // Never start a stream just to end it: with nothing shown yet the caller posts the answer itself.
    if (this.#editor.posted || payload.tasks.length > 0)
      this.#editor.set({ tasks: payload.tasks, text: this.#sentText });
    await this.#editor.flush();
    this.#editor.dispose();
    const ts = this.#editor.ref;
    if (this.#refused || !ts) return false;
    const extends_ = payload.text.startsWith(this.#sentText);
    const chunks = this.#chunks(extends_ ? payload : { tasks: payload.tasks, text: this.#sentText });
    try {
      await this.client.chat.stopStream({
        channel: this.target.channel,
        ts,
        ...(chunks.length > 0 ? { chunks: chunks as never } : {}),
        ...(extends_ ? { blocks: closing.blocks as never } : {}),
      });
      if (!extends_) {
        const final = renderAnswerChunk(payload.text, { ...closing, final: true });
        await this.client.chat.update({
          channel: this.target.channel,
          ts,
          text: final.text,
          blocks: final.blocks as never,
        });
      }
      return true;
    } catch (err) {
      const code = slackErrorCode(err);
      this.logger.warn({ err: code ?? String(err) }, 'slack stream could not be finished');
      if (code && STREAMING_REFUSALS.has(code)) {
        this.#refused = true;
        await this.client.chat.delete({ channel: this.target.channel, ts }).catch(() => undefined);
        return false;
      }
      return true;
    }
  }

  /** Removes a half-streamed message after a refusal mid-stream (the sink re-renders it). */
  async discard(): Promise<void> {
    this.#editor.dispose();
    const ts = this.#editor.ref;
    if (ts) await this.client.chat.delete({ channel: this.target.channel, ts }).catch(() => undefined);
  }
}
