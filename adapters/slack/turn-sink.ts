/**
 * The TurnSink of one Slack turn. How the turn looks is the shared TurnRenderer's
 * (src/render/turn-renderer.ts); this file gives it Slack's primitives — chat.postMessage /
 * chat.update / chat.delete in the thread, the Block Kit builders of render-blocks.ts, the answer
 * limit, the assistant thread status — and the private replies. Where the workspace has native AI
 * streaming, the renderer also gets Slack's stream primitive (native-stream.ts) as a capability: the
 * same renderer draws the turn either way.
 */
import type { UserText } from '../../src/i18n/phrase.js';
import { say } from '../../src/i18n/say.js';
import { t } from '../../src/i18n/translate.js';
import type { Logger } from '../../src/logger.js';
import type { PlanProposal } from '../../src/modes/plan/plan-types.js';
import type { ChannelPacers } from '../../src/render/channel-pacer.js';
import type { ChannelLimits } from '../../src/render/pace-rules.js';
import { deliverReply, type ReplyRoute } from '../../src/render/reply.js';
import type { EditorClock } from '../../src/render/editor-clock.js';
import { TurnRenderer } from '../../src/render/turn-renderer.js';
import type { TurnView } from '../../src/render/view.js';
import type { Locale, TurnSink } from '../../src/surface.js';
import type { ToolApprovalRequest } from '../../src/tools/types.js';
import { neutraliseMentions } from './markdown.js';
import {
  ANSWER_CHUNK_CHARS,
  renderAnswerChunk,
  renderApprovalPart,
  renderPlanPart,
  renderReplyPart,
  renderSteps,
  SLACK_REPLY,
  type SlackPayload,
} from './render-blocks.js';
import { SlackAnswerStream } from './native-stream.js';
import { isDirectChannel } from './ids.js';
import { type SlackClient, slackErrorCode, slackWrite } from './slack-client.js';
import type { SlackSurfaceState } from './surface-state.js';

/** Slack's chat.update is Tier 3 (50+/min); about one edit per second per message stays clear. */
export const EDIT_INTERVAL_MS = 1000;

/**
 * What Slack allows per channel: chat.postMessage about 1 per second with short bursts, for all
 * threads of the channel together. A burst of 4 (3 for intermediate posts, the 4th kept for a
 * turn's first answer text or final state) lets a few turns start together in one channel without
 * waiting, while a long answer's overflow parts no longer go out all at once. chat.update (Tier 3)
 * and the stream's calls are limited per workspace and method, not per channel: their 429s carry
 * Retry-After (delivery.ts).
 */
export const SLACK_CHANNEL_LIMITS: ChannelLimits = { post: [{ burst: 4, everyMs: 1_000 }] };

/**
 * Slack's Tier 3 as Scout keeps to it: never more than 50 calls in any minute. Intermediate frames
 * are spread one per 1.2 s (after a short burst, so a quiet workspace shows edits at once) and
 * leave 10 of the minute's 50 to finals, which may use all the room there is at once: a few turns
 * (two or three messages each, usually) land their finals at once however busy the workspace.
 * Answers finish in arrival order: a turn's finals leave 8 of the minute's units for each older turn
 * still running, and its intermediate frames for each older turn already writing its final (a 40k
 * answer's final edits: its steps and six parts, with one to spare; at 5 an answer whose model ended
 * a moment before an older one's took the room the older one's seven finals needed, and the older
 * one waited for the next minute), so when many long answers end at once the oldest finish first;
 * a turn still streaming holds no later turn's frames (channel-pacer.ts).
 */
const TIER_3 = [
  { max: 50, perMs: 60_000, reserve: 10, perTurn: 8 },
  { burst: 5, everyMs: 1_200, ordinaryOnly: true },
];

/**
 * The native stream's appends (PLATFORMS.md): chat.appendStream is Tier 4 (100+ a minute), counted
 * per workspace; paced, a busy workspace's streams append less often (each append carries all the
 * text that grew) and the stop carries the rest. chat.startStream and chat.stopStream (Tier 2,
 * "20+ a minute", bursts allowed) are not held back: each is a turn's first answer text or its
 * final, one of each per answer, and pacing them at Tier 2's floor made the 21st of 50 answers
 * started together wait a minute to show anything and 50 answers take minutes (bench scenario 6);
 * Slack's 429 for them carries Retry-After, which delivery.ts honours.
 */
const TIER_4 = [{ max: 100, perMs: 60_000, reserve: 10 }];

/**
 * What Slack allows per workspace: chat.update and chat.delete are Tier 3 (about 50 a minute per
 * workspace and method), for every channel together. Paced here, a busy workspace's intermediate
 * frames wait (one per message, its latest content once it goes) while every turn's final edits go
 * first; left to Slack, most updates came back 429 and each one paused every Web API call.
 */
export const SLACK_WORKSPACE_LIMITS: ChannelLimits = {
  edit: TIER_3,
  delete: TIER_3,
  'stream-append': TIER_4,
};

export interface SlackTurnTarget {
  team: string;
  channel: string;
  threadTs: string;
  userId: string;
  conversationId: string;
  locale: Locale;
}

export interface SlackSinkDeps {
  client: SlackClient;
  state: SlackSurfaceState;
  logger: Logger;
  editIntervalMs?: number;
  /** Try `chat.startStream` (default true); the workspace's remembered refusal wins. */
  nativeStreaming?: boolean;
  /** Called for every message post and edit (metrics). */
  onEdit?: () => void;
  /** Timers of the edit throttling (tests, and the benchmark's measure of time spent pacing edits). */
  clock?: EditorClock;
  /** Longest wait before growing text is rendered (default: a tenth of the edit interval). */
  renderFrameMs?: number;
  /** The surface's channel pacers: the turns in one channel share its pace. */
  pacers?: ChannelPacers;
  /** Per-channel limits (default SLACK_CHANNEL_LIMITS; tests shrink them with the edit interval). */
  channelLimits?: ChannelLimits;
  /** The surface's workspace pacers: the turns in one workspace share its edits and deletes. */
  workspacePacers?: ChannelPacers;
  /** Per-workspace limits (default SLACK_WORKSPACE_LIMITS; tests shrink them with the edit interval). */
  workspaceLimits?: ChannelLimits;
}

/** A steps payload built both ways: with `container` blocks, and the Show/Hide button fallback. */
interface StepsChoice extends SlackPayload {
  fallback?: SlackPayload;
}

export class SlackTurnSink implements TurnSink {
  readonly #renderer: TurnRenderer<StepsChoice, string>;
  #approvals: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: SlackSinkDeps,
    private readonly target: SlackTurnTarget,
  ) {
    const { client, state, logger } = deps;
    const { channel, threadTs, conversationId, locale, team } = target;
    const flags = state.workspace(team);
    // chat.update, chat.delete and the stream's methods count per workspace, whatever the channel.
    const workspaceLimits = deps.workspaceLimits ?? SLACK_WORKSPACE_LIMITS;
    const workspace = deps.workspacePacers?.channel(team, workspaceLimits);
    const stream =
      deps.nativeStreaming !== false && flags.streaming
        ? new SlackAnswerStream(
            client,
            target,
            (scope, code) => {
              logger.info({ team, code, scope }, 'slack native streaming refused; using post + update');
              // Only a refusal of the feature turns streaming off for the workspace; one expired stream
              // (`message_not_in_streaming_state`) falls back for its own turn alone.
              if (scope === 'workspace') flags.streaming = false;
            },
            workspace,
          )
        : undefined;
    const send = async (payload: StepsChoice, call: (p: SlackPayload) => Promise<unknown>) => {
      try {
        return await slackWrite(() => call(payload));
      } catch (err) {
        // The workspace rejects `container` blocks: remember it and send the Show/Hide form.
        if (!payload.fallback || slackErrorCode(err) !== 'invalid_blocks') throw err;
        logger.info({ team }, 'slack rejected container blocks; using Show/Hide details');
        flags.containers = false;
        return slackWrite(() => call(payload.fallback!));
      }
    };
    const args = (p: SlackPayload) => ({ text: p.text, blocks: p.blocks as never });
    this.#renderer = new TurnRenderer<StepsChoice, string>({
      writer: {
        post: async (payload) => {
          const result = (await send(payload, (p) =>
            client.chat.postMessage({ channel, thread_ts: threadTs, ...args(p) }),
          )) as { ts?: string };
          return result.ts as string;
        },
        edit: async (ts, payload) => {
          await send(payload, (p) => client.chat.update({ channel, ts, ...args(p) }));
        },
        remove: async (ts) => {
          await slackWrite(() => client.chat.delete({ channel, ts }));
        },
      },
      build: {
        steps: (view, controls) => {
          const options = { locale, conversationId, expanded: controls.expanded, stop: controls.stop };
          const withContainers = flags.containers
            ? renderSteps(view, { ...options, containers: true })
            : undefined;
          const plain = renderSteps(view, { ...options, containers: false });
          if (!withContainers) return plain;
          return plain ? { ...withContainers, fallback: plain } : withContainers;
        },
        answerPart: (markdown, controls) =>
          renderAnswerChunk(neutraliseMentions(markdown), {
            locale,
            conversationId,
            final: controls.feedback || controls.footer !== undefined,
            ...(controls.footer ? { footer: controls.footer } : {}),
            feedback: controls.feedback,
            stop: controls.stop,
          }),
        // Defused before the split: the zero-width spaces count toward each message's limit.
        adaptMarkdown: neutraliseMentions,
        planPart: (markdown, controls) => renderPlanPart(markdown, controls, { locale, conversationId }),
        approvalPart: (markdown, controls) =>
          renderApprovalPart(markdown, controls, { locale, conversationId }),
      },
      ...(stream ? { stream } : {}),
      limits: { answerChars: ANSWER_CHUNK_CHARS, channel: deps.channelLimits ?? SLACK_CHANNEL_LIMITS },
      // Slack's post limit is the channel's, whatever thread the turn is in.
      ...(deps.pacers ? { channel: { key: channel, pacers: deps.pacers } } : {}),
      ...(workspace ? { wider: { edit: workspace, delete: workspace } } : {}),
      locale,
      logger,
      intervalMs: deps.editIntervalMs ?? EDIT_INTERVAL_MS,
      ...(deps.clock ? { clock: deps.clock } : {}),
      ...(deps.renderFrameMs !== undefined ? { renderFrameMs: deps.renderFrameMs } : {}),
      status: async (status) => {
        await client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status });
      },
      // The channel refused Scout's messages: an ephemeral there would be refused too (it needs
      // Scout in the channel), so the asker hears it by DM straight away.
      onRefused: async () => {
        await this.#privately(t(locale, 'delivery.refused'), { ephemeral: false });
      },
      onFinished: async ({ stepsRef, view, expanded }) => {
        if (stepsRef === undefined) return;
        state.rememberSteps({
          channel,
          ts: stepsRef,
          view,
          expanded,
          conversationId,
          locale,
        });
      },
      ...(deps.onEdit ? { onWrite: deps.onEdit } : {}),
    });
  }

  update(view: TurnView): void {
    this.#renderer.update(view);
  }

  async done(view: TurnView): Promise<void> {
    await this.#renderer.done(view);
  }

  /**
   * A reply meant for the asker alone: ephemeral in the thread, else a DM from Scout, else nothing
   * but a warning in the log. Never posted in the thread for everyone to read.
   */
  async reply(text: UserText): Promise<void> {
    await this.#privately(say(this.target.locale, text), { ephemeral: true });
  }

  /**
   * Ephemeral in the thread (when `ephemeral`), else a DM, else a warning in the log; under the
   * delivery policy (src/render/reply.ts), split into parts rather than cut. Neither route is the
   * channel's posts: its pace does not count them.
   */
  async #privately(text: string, options: { ephemeral: boolean }): Promise<void> {
    const { client, logger } = this.deps;
    const { channel, threadTs, userId } = this.target;
    const content = (part: string) => {
      const { text, blocks } = renderReplyPart(part);
      return { text, blocks: blocks as never };
    };
    // In a DM the DM is the conversation that refused: there is nowhere else to say it.
    if (isDirectChannel(channel) && !options.ephemeral) {
      logger.warn({ channel }, 'refused in a DM: nowhere else to tell the user');
      return;
    }
    const routes: ReplyRoute[] = [
      // Posting to a user id lands in the app's DM with them: still private.
      { write: (part) => slackWrite(() => client.chat.postMessage({ channel: userId, ...content(part) })) },
    ];
    if (options.ephemeral)
      routes.unshift({
        write: (part) =>
          slackWrite(() =>
            client.chat.postEphemeral({ channel, user: userId, thread_ts: threadTs, ...content(part) }),
          ),
        onFallback: (err) =>
          logger.info({ err: slackErrorCode(err) }, 'ephemeral reply refused; sending it as a DM'),
      });
    try {
      await deliverReply(text, SLACK_REPLY, routes);
    } catch (err) {
      logger.warn(
        { err: slackErrorCode(err) },
        'private reply could not be delivered; not posting it publicly',
      );
    }
  }

  /** The plan shown whole (split across messages when long), Run / Cancel under its last part. */
  async confirmPlan(plan: PlanProposal, signal: AbortSignal): Promise<boolean> {
    return this.#renderer.confirmPlan(plan, () => this.#choice(signal));
  }

  /**
   * A tool call that may change something, with Approve / Deny. Asked one at a time (parallel tool
   * calls queue): the buttons answer the conversation's one pending choice, as a plan's do.
   */
  async confirmTool(request: ToolApprovalRequest, signal: AbortSignal): Promise<boolean> {
    const asked = this.#approvals.then(() =>
      signal.aborted ? false : this.#renderer.confirmTool(request, () => this.#choice(signal)),
    );
    this.#approvals = asked.catch(() => undefined);
    return asked;
  }

  /** Waits for the conversation's buttons (local or relayed presses); false when `signal` aborts. */
  #choice(signal: AbortSignal): Promise<boolean> {
    const { state } = this.deps;
    const { conversationId } = this.target;
    return new Promise<boolean>((resolve) => {
      const onAbort = () => resolve(false);
      if (signal.aborted) return resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
      const unregister = state.waitForPlan(conversationId, (choice) => {
        signal.removeEventListener('abort', onAbort);
        resolve(choice);
      });
      signal.addEventListener('abort', unregister, { once: true });
    });
  }
}
