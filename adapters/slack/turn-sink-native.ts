import { splitMessage } from '../../src/render/split-text.js';
import { FRAMES_PER_EDIT_INTERVAL, RenderFrame, ViewChanges } from '../../src/render/render-frame.js';
import { ThrottledEditor } from '../../src/render/throttled-editor.js';
import type { TurnView } from '../../src/render/view.js';
import type { TurnSink } from '../../src/surface.js';
import { NativeStream, taskChunks } from './native-stream.js';
import {
  ANSWER_CHUNK_CHARS,
  answerText,
  renderAnswerChunk,
  renderClosingBlocks,
  renderSteps,
  type SlackPayload,
} from './render-blocks.js';
import { slackErrorCode, slackWrite, WORKSPACE_STREAMING_REFUSALS } from './slack-client.js';
import { t } from '../../src/i18n/translate.js';
import { EDIT_INTERVAL_MS, type SlackSinkDeps, type SlackTurnTarget } from './turn-sink.js';

export class SlackNativeTurnSink implements Pick<TurnSink, 'update' | 'done'> {
  readonly #interval: number;
  readonly #steps: ThrottledEditor<SlackPayload, string>;
  readonly #answers: ThrottledEditor<SlackPayload, string>[] = [];
  #stream: NativeStream | undefined;
  #view: TurnView | undefined;
  readonly #frame: RenderFrame;
  readonly #changes = new ViewChanges();
  #finished = false;
  #status: string | null = null;
  #statusEverSet = false;

  constructor(
    private readonly deps: SlackSinkDeps,
    private readonly target: SlackTurnTarget,
  ) {
    this.#interval = deps.editIntervalMs ?? EDIT_INTERVAL_MS;
    this.#steps = this.#editor();
    this.#frame = new RenderFrame(
      () => this.#renderSafely(),
      deps.renderFrameMs ?? this.#interval / FRAMES_PER_EDIT_INTERVAL,
    );
    const flags = deps.state.workspace(target.team);
    if (deps.nativeStreaming !== false && flags.streaming) {
      const onRefused = (code: string) => {
        deps.logger.info({ team: target.team, code }, 'slack native streaming refused; using post + update');
        // Only a refusal of the feature turns streaming off for the workspace; one expired stream
        // (`message_not_in_streaming_state`) falls back for this turn alone.
        if (WORKSPACE_STREAMING_REFUSALS.has(code)) flags.streaming = false;
        const stream = this.#stream;
        this.#stream = undefined;
        void stream?.discard();
        this.#frame.request(true);
      };
      this.#stream = new NativeStream(
        deps.client,
        target,
        this.#interval,
        deps.logger,
        onRefused,
        deps.clock,
      );
    }
  }

  update(view: TurnView): void {
    this.#view = view;
    if (!this.#finished) this.#frame.request(this.#changes.visible(view));
  }

  async done(view: TurnView): Promise<void> {
    this.#view = view;
    this.#finished = true;
    this.#frame.stop();
    const steps = this.#renderStepsPayload(view);
    if (steps) this.#steps.set(steps);
    // The steps message, the answer and the thread status are independent Slack objects: their final
    // calls run side by side instead of one after another (each is a Web API round trip).
    const status = this.#statusEverSet ? this.#setStatus('') : Promise.resolve();
    const stepsDone = this.#finishSteps(Boolean(steps));
    // A steps message not posted yet must still land above the answer: wait for it first.
    if (steps && !this.#steps.posted) await stepsDone;
    await this.#finishAnswer(view);
    await stepsDone;
    if (this.#steps.ref) {
      this.deps.state.rememberSteps({
        channel: this.target.channel,
        ts: this.#steps.ref,
        view,
        expanded: false,
        conversationId: this.target.conversationId,
        locale: this.target.locale,
        stepsElsewhere: this.#stream !== undefined,
      });
    }
    await status;
  }

  /** Final edit of the steps message, or its removal when the view has none (native streaming). */
  async #finishSteps(hasSteps: boolean): Promise<void> {
    await this.#steps.flush();
    if (!hasSteps && this.#steps.ref)
      await this.deps.client.chat
        .delete({ channel: this.target.channel, ts: this.#steps.ref })
        .catch(() => undefined);
    this.#steps.dispose();
  }

  async #finishAnswer(view: TurnView): Promise<void> {
    const { client } = this.deps;
    const { channel } = this.target;
    const chunks = splitMessage(answerText(view) || ' ', ANSWER_CHUNK_CHARS).filter((c) => c.trim());
    let first = 0;
    if (this.#stream) {
      const closing = {
        locale: this.target.locale,
        conversationId: this.target.conversationId,
        footer: view.footer,
        feedback: true,
      };
      const payload = {
        tasks: taskChunks(view.steps, view.sources),
        text: chunks[0] ?? '',
      };
      const streamed = await this.#stream.finish(payload, {
        ...closing,
        blocks: chunks.length <= 1 ? renderClosingBlocks(view, closing) : [],
      });
      if (streamed) first = 1;
    }
    for (let i = first; i < chunks.length; i++) {
      const editor = this.#answerEditor(i - first);
      editor.set(this.#answerPayload(chunks[i]!, i === chunks.length - 1, view));
      await editor.flush();
    }
    // Fewer messages than while streaming (the final text is shorter): remove the extra ones.
    for (let i = Math.max(0, chunks.length - first); i < this.#answers.length; i++) {
      const editor = this.#answers[i]!;
      await editor.flush();
      editor.dispose();
      if (editor.ref) await client.chat.delete({ channel, ts: editor.ref }).catch(() => undefined);
    }
  }

  #editor(): ThrottledEditor<SlackPayload, string> {
    const { client, logger } = this.deps;
    const { channel, threadTs } = this.target;
    return new ThrottledEditor<SlackPayload, string>({
      intervalMs: this.#interval,
      ...(this.deps.clock ? { clock: this.deps.clock } : {}),
      post: async (payload) => {
        this.deps.onEdit?.();
        const result = await this.#withContainerFallback(payload, (p) =>
          slackWrite(() => client.chat.postMessage({ channel, thread_ts: threadTs, ...asArgs(p) })),
        );
        return result.ts as string;
      },
      edit: async (ts, payload) => {
        this.deps.onEdit?.();
        await this.#withContainerFallback(payload, (p) =>
          slackWrite(() => client.chat.update({ channel, ts, ...asArgs(p) })),
        );
      },
      onError: (err, call) =>
        logger.warn({ err: slackErrorCode(err) ?? String(err), call }, 'slack message call failed'),
    });
  }

  /** Retries once without `container` blocks when the workspace rejects them, and remembers that. */
  async #withContainerFallback<T>(payload: SlackPayload, send: (p: SlackPayload) => Promise<T>): Promise<T> {
    try {
      return await send(payload);
    } catch (err) {
      const hasContainer = payload.blocks.some((b) => b.type === 'container');
      if (!hasContainer || slackErrorCode(err) !== 'invalid_blocks' || !this.#view) throw err;
      this.deps.logger.info(
        { team: this.target.team },
        'slack rejected container blocks; using Show/Hide details',
      );
      this.deps.state.workspace(this.target.team).containers = false;
      const again = this.#renderStepsPayload(this.#view);
      if (!again) throw err;
      return send(again);
    }
  }

  #renderStepsPayload(view: TurnView): SlackPayload | undefined {
    return renderSteps(view, {
      locale: this.target.locale,
      conversationId: this.target.conversationId,
      containers: this.deps.state.workspace(this.target.team).containers,
      expanded: false,
      stepsElsewhere: this.#stream !== undefined,
    });
  }

  #answerEditor(i: number): ThrottledEditor<SlackPayload, string> {
    while (this.#answers.length <= i) this.#answers.push(this.#editor());
    return this.#answers[i]!;
  }

  #answerPayload(chunk: string, last: boolean, view: TurnView): SlackPayload {
    return renderAnswerChunk(chunk, {
      locale: this.target.locale,
      conversationId: this.target.conversationId,
      final: last && view.done,
      footer: view.footer,
      feedback: true,
      // Chat turns have no steps message: the streaming answer carries the Stop button.
      stop: last && !view.done && !this.#steps.posted,
    });
  }

  #renderSafely(): void {
    try {
      if (!this.#finished && this.#view) this.#render(this.#view);
    } catch (err) {
      // A render bug must cost one frame, not the process: the final render retries in done().
      this.deps.logger.error({ err }, 'slack render failed');
    }
  }

  #render(view: TurnView): void {
    const steps = this.#renderStepsPayload(view);
    if (steps) this.#steps.set(steps);
    const text = answerText(view);
    if (view.status !== this.#status && view.status) void this.#setStatus(view.status);
    else if (!this.#statusEverSet && !text) void this.#setStatus(t(this.target.locale, 'status.working'));
    const chunks = text ? splitMessage(text, ANSWER_CHUNK_CHARS) : [];
    let first = 0;
    if (this.#stream) {
      if (view.steps.length > 0 || chunks[0])
        this.#stream.set({
          tasks: taskChunks(view.steps, view.sources),
          text: chunks[0] ?? '',
        });
      first = 1;
    } else if (this.#steps.ref === undefined && steps) {
      return; // keep the steps message above the answer: wait until it is posted
    }
    for (let i = first; i < chunks.length; i++) {
      const index = i - first;
      // Post overflow messages in order: the next one only once the previous one exists.
      if (index > 0 && !this.#answers[index - 1]?.posted) break;
      this.#answerEditor(index).set(this.#answerPayload(chunks[i]!, i === chunks.length - 1, view));
    }
  }

  async #setStatus(status: string): Promise<void> {
    this.#status = status || null;
    this.#statusEverSet = true;
    try {
      await this.deps.client.assistant.threads.setStatus({
        channel_id: this.target.channel,
        thread_ts: this.target.threadTs,
        status,
      });
    } catch (err) {
      this.deps.logger.debug({ err: slackErrorCode(err) }, 'assistant.threads.setStatus failed');
    }
  }
}

function _markdownBlock(text: string) {
  return { type: 'markdown', text: text.slice(0, ANSWER_CHUNK_CHARS) || ' ' };
}

/** Block arrays typed loosely here; the fake Slack API and Slack itself validate them. */
function asArgs(payload: SlackPayload): { text: string; blocks: never } {
  return { text: payload.text, blocks: payload.blocks as never };
}
