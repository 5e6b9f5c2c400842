/**
 * TurnView → Block Kit. Two messages per turn: the steps message (one collapsible `container` per
 * step, or sections with a Show/Hide details button where a workspace rejects containers) and the
 * answer message(s) (standard Markdown in `markdown` blocks, footer and feedback buttons under the
 * last one). Every builder stays inside Slack's limits (shared/PLATFORMS.md) by construction.
 */
import {
  type Choice,
  type Control,
  type ControlId,
  approvalChoice,
  controls,
  detailsToggle,
  planChoice,
} from '../../src/render/controls.js';
import { stepHeadline } from '../../src/render/step-text.js';
import type { ApprovalControls, PlanControls } from '../../src/render/renderer-options.js';
import type { StepView, TurnView } from '../../src/render/view.js';
import type { Locale } from '../../src/surface.js';
import type { ReplyFormat } from '../../src/render/reply.js';
import { splitMessage } from '../../src/render/split-text.js';
import { sliceWhole } from '../../src/render/well-formed.js';
import { neutraliseMentions, tail, toMrkdwn, truncate } from './markdown.js';
import { t } from '../../src/i18n/translate.js';

/** Slack rejects more than 50 blocks; three are kept for the phase line, Stop and the toggle. */
const MAX_STEP_BLOCKS = 45;
/** Container and header titles are capped at 150 characters. */
const MAX_TITLE_CHARS = 150;
/** Section text is capped at 3,000; a little under leaves room for the title line in fallback mode. */
const MAX_SECTION_CHARS = 2_900;
/** Whole messages are rejected near 13,200 characters; steps stay well under it. */
const STEPS_CHAR_BUDGET = 11_000;
/** A step body never shrinks below this, however many steps share the budget. */
const MIN_STEP_BODY = 120;
/**
 * Answer text per message. `markdown` blocks take 12,000 and whole messages fail near 13,200: 10,000
 * leaves room for the fallback `text`, footer and buttons.
 */
export const ANSWER_CHUNK_CHARS = 10_000;
/** The notification/fallback `text`; chat.update rejects `text` above ~4,000 characters. */
const FALLBACK_TEXT_CHARS = 1_000;
/** Context text elements are capped at 3,000; footers are short anyway. */
const MAX_CONTEXT_CHARS = 2_000;
/** Slack rejects a message with more blocks than this. */
const MAX_BLOCKS = 50;
/** Whole messages are rejected near 13,200 characters (shared/PLATFORMS.md); kept a little under. */
const MAX_MESSAGE_CHARS = 13_000;
/** A streamed message's notification text: short, its room goes to the task cards. */
const STREAMED_FALLBACK_CHARS = 200;

export const ACTION_STOP = 'scout_stop';
export const ACTION_TOGGLE = 'scout_toggle_details';
export const ACTION_FEEDBACK_UP = 'scout_feedback_up';
export const ACTION_FEEDBACK_DOWN = 'scout_feedback_down';
export const ACTION_PLAN_RUN = 'scout_plan_run';
export const ACTION_PLAN_CANCEL = 'scout_plan_cancel';
/** A tool call's Approve / Deny: answered like a plan's Run / Cancel (the conversation's pending choice). */
export const ACTION_TOOL_APPROVE = 'scout_tool_approve';
export const ACTION_TOOL_DENY = 'scout_tool_deny';

/** The action id each control's button carries (both details labels toggle the same way). */
const ACTION_ID: Record<ControlId, string> = {
  stop: ACTION_STOP,
  'show-details': ACTION_TOGGLE,
  'hide-details': ACTION_TOGGLE,
  'feedback-up': ACTION_FEEDBACK_UP,
  'feedback-down': ACTION_FEEDBACK_DOWN,
  run: ACTION_PLAN_RUN,
  cancel: ACTION_PLAN_CANCEL,
  approve: ACTION_TOOL_APPROVE,
  deny: ACTION_TOOL_DENY,
};

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is open-ended; the fake Slack API checks what Slack would refuse
export type Block = Record<string, any>;
export interface SlackPayload {
  text: string;
  blocks: Block[];
}

export interface StepsRenderOptions {
  locale: Locale;
  conversationId: string;
  /** The workspace accepts `container` blocks. */
  containers: boolean;
  /** Fallback mode: collapsed steps show their bodies (the Show details button was pressed). */
  expanded: boolean;
  /** Whether Stop is on this message (default: while the turn runs). */
  stop?: boolean;
}

function plain(text: string) {
  return { type: 'plain_text', text, emoji: true };
}

function mrkdwn(text: string) {
  return { type: 'mrkdwn', text };
}

/** A Block Kit button for a control; `value` is the conversation the press is about. */
function button(control: Control, value: string): Block {
  return {
    type: 'button',
    text: plain(truncate(control.label, 75)),
    action_id: ACTION_ID[control.id],
    value,
    // Block Kit's default look is the secondary one.
    ...(control.style === 'secondary' ? {} : { style: control.style }),
  };
}

function actions(list: Control[], conversationId: string): Block {
  return { type: 'actions', elements: list.map((control) => button(control, conversationId)) };
}

/** A choice's buttons while it is open, then its outcome in their place. */
function choiceBlocks(choice: Choice, conversationId: string): Block[] {
  if (choice.buttons.length > 0) return [actions(choice.buttons, conversationId)];
  return choice.outcome ? [{ type: 'context', elements: [mrkdwn(choice.outcome)] }] : [];
}

function stepTitle(step: StepView): string {
  return truncate(neutraliseMentions(stepHeadline(step, MAX_TITLE_CHARS)), MAX_TITLE_CHARS);
}

/** The body as mrkdwn, cut to `max`; running steps keep their newest text, finished ones their start. */
function stepBody(step: StepView, max: number): string {
  const body = step.body.trim();
  if (!body) return '';
  const limit = Math.min(max, MAX_SECTION_CHARS);
  const cut = step.status === 'running' ? tail(body, limit) : truncate(body, limit);
  return truncate(toMrkdwn(cut), MAX_SECTION_CHARS);
}

/** Shares the character budget between the step bodies shown. */
function bodyBudget(steps: StepView[]): number {
  const titles = steps.reduce((n, s) => n + Math.min(s.title.length, MAX_TITLE_CHARS) + 10, 0);
  const withBody = steps.filter((s) => s.body.trim()).length || 1;
  return Math.max(MIN_STEP_BODY, Math.floor((STEPS_CHAR_BUDGET - titles) / withBody));
}

/** Keeps the newest steps when there are more than fit; older finished ones become one line. */
function visibleSteps(steps: StepView[]): { hidden: number; shown: StepView[] } {
  if (steps.length <= MAX_STEP_BLOCKS - 1) return { hidden: 0, shown: steps };
  const shown = steps.slice(steps.length - (MAX_STEP_BLOCKS - 1));
  return { hidden: steps.length - shown.length, shown };
}

/** The steps message, or undefined when there is nothing to show. */
export function renderSteps(view: TurnView, options: StepsRenderOptions): SlackPayload | undefined {
  const { locale } = options;
  const steps = view.steps;
  const running = !view.done;
  if (steps.length === 0) return undefined;
  const blocks: Block[] = [];
  const { hidden, shown } = visibleSteps(steps);
  if (hidden > 0)
    blocks.push({
      type: 'context',
      elements: [mrkdwn(`… ${t(locale, 'steps.earlier', { count: hidden })}`)],
    });
  const budget = bodyBudget(shown);
  let collapsible = false;
  for (const step of shown) {
    const body = stepBody(step, budget);
    if (options.containers) {
      const child = body
        ? { type: 'section', text: mrkdwn(body) }
        : { type: 'context', elements: [mrkdwn(stepTitle(step))] };
      blocks.push({
        type: 'container',
        title: plain(stepTitle(step)),
        is_collapsible: true,
        default_collapsed: step.collapsed && step.status !== 'running',
        child_blocks: [child],
      });
      continue;
    }
    const open = body && (!step.collapsed || options.expanded);
    if (body && step.collapsed) collapsible = true;
    if (open) {
      const text = truncate(`*${stepTitle(step)}*\n${body}`, MAX_SECTION_CHARS);
      blocks.push({ type: 'section', text: mrkdwn(text), expand: true });
    } else {
      blocks.push({ type: 'context', elements: [mrkdwn(`*${stepTitle(step)}*`)] });
    }
  }
  if (view.phase && running)
    blocks.push({
      type: 'context',
      elements: [mrkdwn(truncate(neutraliseMentions(view.phase), MAX_CONTEXT_CHARS))],
    });
  const ids: ControlId[] = [];
  if (options.stop ?? running) ids.push('stop');
  if (collapsible) ids.push(detailsToggle(options.expanded));
  if (ids.length > 0) blocks.push(actions(controls(locale, ...ids), options.conversationId));
  // The fallback `text` is what notifications show: step titles carry model-chosen search queries.
  const text = truncate(
    neutraliseMentions(shown.map((s) => s.title).join(' · ') || view.phase || t(locale, 'status.working')),
    FALLBACK_TEXT_CHARS,
  );
  return { text, blocks };
}

export interface AnswerRenderOptions {
  locale: Locale;
  conversationId: string;
  /** This is the last answer message of a finished turn: add the footer and feedback buttons. */
  final: boolean;
  footer?: string;
  feedback: boolean;
  /** Show the Stop button (a running turn whose steps message does not carry one). */
  stop?: boolean;
}

/** One answer message holding `chunk` (≤ ANSWER_CHUNK_CHARS of Markdown). */
export function renderAnswerChunk(chunk: string, options: AnswerRenderOptions): SlackPayload {
  const blocks: Block[] = [];
  const body = chunk.trim() || '…';
  blocks.push({ type: 'markdown', text: body });
  if (options.final && options.footer) {
    blocks.push({
      type: 'context',
      elements: [mrkdwn(truncate(toMrkdwn(options.footer), MAX_CONTEXT_CHARS))],
    });
  }
  if (options.stop && !options.final)
    blocks.push(actions(controls(options.locale, 'stop'), options.conversationId));
  if (options.final && options.feedback)
    blocks.push(actions(controls(options.locale, 'feedback-up', 'feedback-down'), options.conversationId));
  return { text: truncate(body, FALLBACK_TEXT_CHARS), blocks };
}

/**
 * How Slack takes a reply (a command's answer, a private notice): parts the size of an answer
 * message, mentions defused before the split (the zero-width spaces count toward the limit).
 */
export const SLACK_REPLY: ReplyFormat = { maxChars: ANSWER_CHUNK_CHARS, adapt: neutraliseMentions };

/** One part of a reply (≤ ANSWER_CHUNK_CHARS of Markdown): a `markdown` block, no buttons. */
export function renderReplyPart(part: string): SlackPayload {
  return {
    text: sliceWhole(part, FALLBACK_TEXT_CHARS),
    blocks: [{ type: 'markdown', text: part || ' ' }],
  };
}

/** Footer and feedback blocks for the end of a natively streamed answer (`chat.stopStream`). */
export function renderClosingBlocks(options: Omit<AnswerRenderOptions, 'final'>): Block[] {
  return renderAnswerChunk('x', { ...options, final: true }).blocks.slice(1);
}

/** A task card as the stream shows it (`task_update` chunk) and as a `task_card` block keeps it. */
export interface TaskCard {
  id: string;
  title: string;
  status: 'pending' | 'in_progress' | 'complete' | 'error';
  details?: string;
  sources?: { type: 'url'; url: string; text: string }[];
}

/**
 * A natively streamed message as an ordinary message (its `chat.update` after the stream: the final
 * text rewritten with linked citations, or a stream that expired): the task cards the stream showed
 * as `task_card` blocks, then the answer part, the footer and the buttons. Cards share what is left
 * of the message's size once the text is in: details go first, then sources, then the oldest cards.
 */
export function renderStreamedMessage(
  markdown: string,
  tasks: TaskCard[],
  options: AnswerRenderOptions,
): SlackPayload {
  const answer = markdown.trim() ? renderAnswerChunk(markdown, options) : undefined;
  const tail = answer
    ? answer.blocks
    : renderAnswerChunk('x', options).blocks.filter((b) => b.type !== 'markdown');
  const text = answer
    ? truncate(answer.text, STREAMED_FALLBACK_CHARS)
    : tasks.map((c) => c.title).join(' · ');
  let budget = MAX_MESSAGE_CHARS - text.length - tail.reduce((n, b) => n + blockChars(b), 0);
  const room = MAX_BLOCKS - tail.length;
  const cards: Block[] = [];
  // The newest cards matter most when not all fit; they are shown in their order.
  for (const task of tasks.slice(-room).reverse()) {
    const full = taskCardBlock(task, true, true);
    const choice = [full, taskCardBlock(task, false, true), taskCardBlock(task, false, false)].find(
      (card) => blockChars(card) <= budget,
    );
    if (!choice) break;
    budget -= blockChars(choice);
    cards.unshift(choice);
  }
  return { text: text || ' ', blocks: [...cards, ...tail] };
}

/** The stop hint card's id: one per stream, updated in place by the stop (native-stream.ts). */
export const STOP_HINT_TASK_ID = 'scout_stop_hint';

/**
 * The card a native stream starts with: Slack's stream methods take no buttons until it ends, so
 * while it runs it says how to stop it — "stop" written in the thread (native-stream.ts,
 * slack-surface.ts); the stop that ends the stream closes it ("Answer ended").
 */
export function streamStopHint(locale: Locale, running: boolean): TaskCard {
  return running
    ? { id: STOP_HINT_TASK_ID, title: t(locale, 'stop.stream-hint'), status: 'in_progress' }
    : { id: STOP_HINT_TASK_ID, title: t(locale, 'stop.stream-hint.ended'), status: 'complete' };
}

function taskCardBlock(task: TaskCard, details: boolean, sources: boolean): Block {
  return {
    type: 'task_card',
    task_id: task.id,
    title: task.title,
    status: task.status,
    ...(details && task.details
      ? {
          details: {
            type: 'rich_text',
            elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: task.details }] }],
          },
        }
      : {}),
    ...(sources && task.sources ? { sources: task.sources } : {}),
  };
}

/** Characters a block puts in a message, counted the way Slack's message size limit counts them. */
function blockChars(block: unknown): number {
  if (typeof block === 'string') return block.length;
  if (Array.isArray(block)) return block.reduce((n: number, b) => n + blockChars(b), 0);
  if (block && typeof block === 'object')
    return Object.values(block).reduce((n: number, v) => n + blockChars(v), 0);
  return 0;
}

/**
 * One part of a plan (Markdown within the answer limit): a section per ≤ 2,900 characters, so a long
 * plan is shown whole; the last part carries Run / Cancel, or the outcome once chosen.
 */
export function renderPlanPart(
  markdown: string,
  state: PlanControls,
  options: { locale: Locale; conversationId: string },
): SlackPayload {
  const blocks: Block[] = splitMessage(toMrkdwn(markdown) || '…', MAX_SECTION_CHARS).map((text) => ({
    type: 'section',
    text: mrkdwn(text),
    expand: true,
  }));
  blocks.push(...choiceBlocks(planChoice(state, options.locale), options.conversationId));
  // Plan steps are model output: the notification text must not ping either.
  return { text: truncate(neutraliseMentions(markdown), FALLBACK_TEXT_CHARS), blocks };
}

/** A tool call waiting for approval: Approve / Deny, then the outcome in their place. */
export function renderApprovalPart(
  markdown: string,
  state: ApprovalControls,
  options: { locale: Locale; conversationId: string },
): SlackPayload {
  const text = truncate(toMrkdwn(neutraliseMentions(markdown)), MAX_SECTION_CHARS);
  const blocks: Block[] = [{ type: 'section', text: mrkdwn(text), expand: true }];
  blocks.push(...choiceBlocks(approvalChoice(state, options.locale), options.conversationId));
  // The arguments are model output: the notification text must not ping.
  return { text: truncate(neutraliseMentions(markdown), FALLBACK_TEXT_CHARS), blocks };
}
