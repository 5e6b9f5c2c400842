/**
 * The steps of a turn as Discord Markdown for the one steps message: the working model, each step
 * with its status, bodies of open steps (all bodies when expanded), the transient status line.
 * Always fits one message: bodies shrink, then go, before a line is cut.
 */
import type { StepStatus } from '../../src/render/events.js';
import type { StepView, TurnView } from '../../src/render/view.js';

/** Discord's content limit per message. */
export const DISCORD_MAX_CHARS = 2000;
/** A running step (streamed reasoning) shows only its latest text: the tail is what is new. */
const RUNNING_BODY_TAIL_CHARS = 600;
/** Body budgets tried in turn until the whole message fits. */
const BODY_BUDGETS = [1200, 500, 200, 0];

const STATUS_ICON: Record<StepStatus, string> = {
  pending: '▫️',
  running: '⏳',
  done: '✅',
  failed: '❌',
  skipped: '⏭️',
  info: 'ℹ️',
};

export function renderStepsText(view: TurnView, options: { expanded: boolean; workingText?: string }): string {
  for (const budget of BODY_BUDGETS) {
    const text = compose(view, options, budget);
    if (text.length <= DISCORD_MAX_CHARS) return text;
  }
  const text = compose(view, options, 0);
  return `${text.slice(0, DISCORD_MAX_CHARS - 1)}…`;
}

function compose(view: TurnView, options: { expanded: boolean; workingText?: string }, bodyBudget: number): string {
  const lines: string[] = [];
  if (view.phase) lines.push(`-# ${view.phase}`);
  for (const step of view.steps) {
    lines.push(`${STATUS_ICON[step.status]} **${oneLine(step.title)}**`);
    const showBody = options.expanded || !step.collapsed;
    if (showBody && step.body.trim() !== '' && bodyBudget > 0) lines.push(quote(bodyOf(step, bodyBudget)));
  }
  if (view.status) lines.push(`*${oneLine(view.status)}*`);
  else if (!view.done && view.steps.length === 0 && options.workingText) lines.push(options.workingText);
  return lines.join('\n');
}

function bodyOf(step: StepView, budget: number): string {
  const body = step.body.trim();
  if (step.status === 'running' && body.length > Math.min(budget, RUNNING_BODY_TAIL_CHARS)) {
    return `…${body.slice(-Math.min(budget, RUNNING_BODY_TAIL_CHARS))}`;
  }
  return body.length > budget ? `${body.slice(0, budget)}…` : body;
}

/** Block quote every line; fences inside a quote would swallow the rest of the message, so neutralise them. */
function quote(text: string): string {
  return text
    .replace(/```/g, 'ˋˋˋ')
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Whether a Show/Hide details button has anything to reveal. */
export function hasDetails(view: TurnView): boolean {
  return view.steps.some((step) => step.body.trim() !== '');
}
