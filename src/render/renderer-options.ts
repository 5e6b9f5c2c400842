/**
 * What a surface gives the turn renderer: its payload builders (and the controls each payload
 * shows), its writer and limits, and its optional capabilities (native stream, status line, typing).
 */
import type { Logger } from '../logger.js';
import type { Locale } from '../i18n/locale.js';
import type { AnswerStream } from './answer-stream.js';
import type { ChannelPace, ChannelPacers } from './channel-pacer.js';
import type { ChannelLimits, WriteKind } from './pace-rules.js';
import type { DeliveryError } from './delivery.js';
import type { EditorClock } from './editor-clock.js';
import type { AnswerControls, MessageWriter } from './message-writer.js';
import type { TurnView } from './view.js';

/** Controls of the steps message. */
export interface StepsControls {
  /** Stop belongs here (the turn runs and no answer text shows yet). */
  stop: boolean;
  /** The details are expanded (Show details pressed). */
  expanded: boolean;
  /** The turn is over: no working label, the view is final. */
  final: boolean;
}

/** Plan controls on the plan's last part: the buttons, or the outcome once chosen. */
export type PlanControls = 'choose' | 'run' | 'cancel' | null;

/** Tool-approval controls: Approve / Deny, or the outcome once chosen. */
export type ApprovalControls = 'choose' | 'approved' | 'denied';

/** How a surface turns rendered content into its platform payload. */
export interface PayloadBuilders<P> {
  /** The steps message, or undefined when there is nothing to show. */
  steps(view: TurnView, controls: StepsControls): P | undefined;
  /** One answer part: Markdown already within `limits.answerChars`. */
  answerPart(markdown: string, controls: AnswerControls): P;
  /** One plan part (Markdown within `limits.answerChars`). */
  planPart(markdown: string, controls: PlanControls): P;
  /** A tool call waiting for Approve / Deny (Markdown within `limits.answerChars`); absent: never asked. */
  approvalPart?(markdown: string, controls: ApprovalControls): P;
  /**
   * Where the footer goes: a Markdown line appended to the answer text (Discord `-# …`), or, when
   * this is absent, `AnswerControls.footer` on the last part.
   */
  footerLine?(footer: string): string;
  /** Rewrites Markdown the platform does not render (Discord: tables) before it is split. */
  adaptMarkdown?(markdown: string): string;
}

export interface TurnRendererOptions<P, R> {
  writer: MessageWriter<P, R>;
  build: PayloadBuilders<P>;
  limits: {
    answerChars: number;
    /**
     * Writes the platform allows per channel (default DEFAULT_CHANNEL_LIMITS; the terminal has
     * none: NO_CHANNEL_LIMITS).
     */
    channel?: ChannelLimits;
  };
  /**
   * The turn's channel among the surface's pacers: its writes share the channel's pace with the
   * other turns there. Absent: the turn is paced on its own.
   */
  channel?: { key: string; pacers: ChannelPacers };
  /**
   * Write kinds the platform limits in a wider scope than the channel, with that scope's pace
   * (Slack: chat.update and chat.delete per workspace); they take their slot there instead.
   */
  wider?: Partial<Record<WriteKind, ChannelPace>>;
  locale: Locale;
  logger: Logger;
  intervalMs: number;
  clock?: EditorClock;
  renderFrameMs?: number;
  /**
   * The platform's native answer stream (Slack AI streaming): the answer's first message streams and
   * shows the steps as task cards; absent, or refused, the answer and steps are ordinary messages.
   */
  stream?: AnswerStream<P, R, unknown>;
  /**
   * The platform's status line (Slack assistant status): set once while working. The platform
   * clears it when a reply arrives (Slack: "cleared automatically when the app sends a reply"), so
   * `done` clears it only when the turn posted nothing.
   */
  status?: (text: string) => Promise<void>;
  /** A typing indicator: started with the first output, stopped at the end. */
  activity?: { start(): void; stop(): void };
  /** The platform refused a write here: tell the user privately (ephemeral / DM), else it is logged. */
  onRefused?: (error: DeliveryError) => Promise<void>;
  /** The turn is drawn: keep what Show details needs later (its own failure is only logged). */
  onFinished?: (result: { stepsRef: R | undefined; view: TurnView; expanded: boolean }) => Promise<void>;
  /** Called for every platform write (the `scout_edits_sent_total` metric). */
  onWrite?: () => void;
}
