/**
 * Slack's native AI streaming as the renderer's stream primitive (src/render/answer-stream.ts):
 * `chat.startStream`, `chat.appendStream` with the new Markdown and a `task_update` chunk per changed
 * step (each search a task card with its sources), `chat.stopStream` with the last chunks and the
 * footer and 👍/👎 blocks. What goes in and when is the renderer's; this file only speaks Slack:
 * the calls, the task cards, the message a stream becomes when it is edited afterwards, and which
 * refusals mean "this stream cannot go on" (`message_not_in_streaming_state`: it expired) or "this
 * workspace does not stream" (`feature_not_enabled`, `unknown_method` …).
 */
import type { AnswerStream, StreamChunks, StreamRefusal } from '../../src/render/answer-stream.js';
import type { ChannelPace } from '../../src/render/channel-pacer.js';
import type { WriteKind } from '../../src/render/pace-rules.js';
import type { Source } from '../../src/render/events.js';
import type { AnswerControls } from '../../src/render/message-writer.js';
import type { StepView } from '../../src/render/view.js';
import { stepLabel } from '../../src/render/step-text.js';
import type { Locale } from '../../src/surface.js';
import { neutraliseMentions, truncate } from './markdown.js';
import {
  renderClosingBlocks,
  renderStreamedMessage,
  type SlackPayload,
  streamStopHint,
  type TaskCard,
} from './render-blocks.js';
import {
  STREAMING_REFUSALS,
  type SlackClient,
  slackErrorCode,
  slackWrite,
  WORKSPACE_STREAMING_REFUSALS,
} from './slack-client.js';

/** Task card titles and details are short UI strings; keep them compact. */
const MAX_TASK_TITLE = 150;
const MAX_TASK_DETAILS = 500;
/** At most this many sources per task card (the search tool returns at most 5). */
const MAX_TASK_SOURCES = 5;
/**
 * The end of a growing text that may still become a mention once more text arrives (`<` before
 * `!here>`, `@he` before `re`): held back until the next chunk or the final, so nothing sent can ping.
 */
const OPEN_MENTION = /(?:<|@[a-z]{0,8})$/i;

export interface StreamTarget {
  channel: string;
  threadTs: string;
  team: string;
  userId: string;
  locale: Locale;
  conversationId: string;
}

const TASK_STATUS: Record<StepView['status'], TaskCard['status']> = {
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
function sourcesOf(body: string, numbered: Source[]): TaskCard['sources'] {
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

/** A step as a task card. */
export function toTaskCard(step: StepView, sources: Source[] = []): TaskCard {
  const card: TaskCard = {
    id: step.id,
    // Titles (search queries) and details (reasoning, snippets) are model or web text: defuse mentions.
    title: truncate(neutraliseMentions(stepLabel(step)), MAX_TASK_TITLE) || '…',
    status: TASK_STATUS[step.status],
  };
  if (step.body.trim()) card.details = truncate(neutraliseMentions(step.body.trim()), MAX_TASK_DETAILS);
  if (step.kind === 'search' || step.kind === 'search-results') {
    const found = sourcesOf(step.body, sources);
    if (found) card.sources = found;
  }
  return card;
}

/** Stream chunks as Slack takes them: `task_update` chunks, then the appended Markdown. */
function toChunks(chunks: StreamChunks<TaskCard>): object[] {
  const out: object[] = chunks.tasks.map((task) => ({ type: 'task_update', ...task }));
  if (chunks.text) out.push({ type: 'markdown_text', text: chunks.text });
  return out;
}

export class SlackAnswerStream implements AnswerStream<SlackPayload, string, TaskCard> {
  constructor(
    private readonly client: SlackClient,
    private readonly target: StreamTarget,
    private readonly onRefused: (scope: StreamRefusal, code: string) => void,
    /**
     * The workspace's pace (slack-surface.ts): Slack counts chat.startStream and chat.stopStream
     * (Tier 2) and chat.appendStream (Tier 4) per workspace and method, so each call takes a slot
     * of its method's kind there. Starting (the first answer text) and stopping (the final) are
     * urgent.
     */
    private readonly pace?: ChannelPace,
  ) {}

  #paced<T>(kind: WriteKind, call: () => Promise<T>): Promise<T> {
    return this.pace ? this.pace.run(kind, call, kind !== 'stream-append') : call();
  }

  async start(chunks: StreamChunks<TaskCard>): Promise<string> {
    const { channel, threadTs, userId, team } = this.target;
    // In channels Slack streams to one recipient; a DM has only one.
    const direct = channel.startsWith('D');
    const result = await this.#paced('stream-start', () =>
      slackWrite(() =>
        this.client.chat.startStream({
          channel,
          thread_ts: threadTs,
          ...(direct ? {} : { recipient_user_id: userId, recipient_team_id: team }),
          task_display_mode: 'timeline',
          chunks: toChunks(chunks) as never,
        }),
      ),
    );
    return result.ts as string;
  }

  async append(ts: string, chunks: StreamChunks<TaskCard>): Promise<void> {
    const { channel } = this.target;
    await this.#paced('stream-append', () =>
      slackWrite(() => this.client.chat.appendStream({ channel, ts, chunks: toChunks(chunks) as never })),
    );
  }

  async stop(
    ts: string,
    chunks: StreamChunks<TaskCard>,
    controls: AnswerControls | undefined,
  ): Promise<void> {
    const { channel } = this.target;
    const list = toChunks(chunks);
    const blocks = controls ? renderClosingBlocks(this.#options(controls)) : [];
    await this.#paced('stream-stop', () =>
      slackWrite(() =>
        this.client.chat.stopStream({
          channel,
          ts,
          ...(list.length > 0 ? { chunks: list as never } : {}),
          ...(blocks.length > 0 ? { blocks: blocks as never } : {}),
        }),
      ),
    );
  }

  task(step: StepView, sources: Source[]): TaskCard {
    return toTaskCard(step, sources);
  }

  text(markdown: string, final: boolean): string {
    const safe = neutraliseMentions(markdown);
    return final ? safe : safe.replace(OPEN_MENTION, '');
  }

  message(markdown: string, controls: AnswerControls, tasks: TaskCard[]): SlackPayload {
    return renderStreamedMessage(neutraliseMentions(markdown), tasks, this.#options(controls));
  }

  /**
   * Slack's stream methods take no buttons until the stream ends (chat.stopStream's `blocks` go
   * under the finished message), and what is streamed stays: a Stop button cannot be shown while
   * it runs, so the stream's first task card says how to stop it — "stop" written in the thread
   * (slack-surface.ts) — and chat.stopStream's own `task_update` closes that card.
   */
  stopHint(running: boolean): TaskCard {
    return streamStopHint(this.target.locale, running);
  }

  refusal(error: unknown): StreamRefusal | undefined {
    const code = slackErrorCode(error);
    if (!code || !STREAMING_REFUSALS.has(code)) return undefined;
    return WORKSPACE_STREAMING_REFUSALS.has(code) ? 'workspace' : 'turn';
  }

  refused(scope: StreamRefusal, error: unknown): void {
    this.onRefused(scope, slackErrorCode(error) ?? 'unknown');
  }

  #options(controls: AnswerControls) {
    return {
      locale: this.target.locale,
      conversationId: this.target.conversationId,
      final: controls.feedback || controls.footer !== undefined,
      ...(controls.footer ? { footer: controls.footer } : {}),
      feedback: controls.feedback,
      stop: controls.stop,
    };
  }
}
