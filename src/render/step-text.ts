/**
 * Text helpers shared by the surfaces' renderers: one-line step headlines with their icons
 * (icons.ts), previews cut at a word boundary, and a plain Markdown rendering of a view's steps
 * (console, Discord).
 */
import { ERROR_ICON, KIND_ICON, STATUS_ICON, STOPPED_ICON, THOUGHT_ICON } from './icons.js';
import type { StepView, TurnView } from './view.js';

/** The step's kind icon, where it has one (the thinking step's changes once the thought is done). */
export function kindIcon(step: Pick<StepView, 'kind' | 'status'>): string {
  if (step.kind === 'thinking' && step.status !== 'running' && step.status !== 'pending') return THOUGHT_ICON;
  return KIND_ICON[step.kind];
}

/**
 * The kind icon and the title: what a surface shows where the platform draws the status itself
 * (Slack's task cards).
 */
export function stepLabel(step: Pick<StepView, 'kind' | 'status' | 'title'>): string {
  const icon = kindIcon(step);
  const title = step.title.replace(/\s+/g, ' ').trim();
  return icon ? `${icon} ${title}` : title;
}

/** Slack container titles and headers stop at 150 characters; one limit keeps headlines alike. */
export const HEADLINE_MAX_CHARS = 150;

/** Body shown under an open (not expanded) step; the full body waits for "Show details". */
export const BODY_PREVIEW_CHARS = 600;

const ELLIPSIS = '…';

/**
 * `⏳ 🔍 Searching: rust async` — status icon, kind icon and title on one line, ≤ `max`. An `info`
 * step (a notice, an evaluation) has no status to show, so only its kind icon leads.
 */
export function stepHeadline(
  step: Pick<StepView, 'kind' | 'status' | 'title'>,
  max: number = HEADLINE_MAX_CHARS,
): string {
  const icons = [step.status === 'info' ? '' : STATUS_ICON[step.status], kindIcon(step)]
    .filter(Boolean)
    .join(' ');
  const title = step.title.replace(/\s+/g, ' ').trim();
  if (!icons) return truncateForPreview(title, max);
  return `${icons} ${truncateForPreview(title, Math.max(0, max - icons.length - 1))}`;
}

/** The line under an answer that ended in an error, or the "Stopped." of a cancelled turn. */
export function errorLine(view: Pick<TurnView, 'error' | 'cancelled'>): string {
  if (!view.error) return '';
  return `${view.cancelled ? STOPPED_ICON : ERROR_ICON} ${view.error}`;
}

/** The transient status line ("⏳ Searching…"). */
export function statusLine(text: string): string {
  return `${STATUS_ICON.running} ${text}`;
}

/**
 * At most `max` characters: cut at the last word boundary that keeps at least half the budget (text
 * without spaces, like Chinese, is cut where it must), then "…".
 */
export function truncateForPreview(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= ELLIPSIS.length) return ELLIPSIS.slice(0, Math.max(0, max));
  const budget = max - ELLIPSIS.length;
  let cut = budget;
  const space = lastWhitespace(text, budget);
  if (space >= budget / 2) cut = space;
  // Never leave half of a surrogate pair (emoji) behind.
  if (cut > 0 && isHighSurrogate(text.charCodeAt(cut - 1))) cut--;
  return text.slice(0, cut).trimEnd() + ELLIPSIS;
}

/** The last `max` characters, starting at a word boundary, with "…" in front (streaming thoughts). */
export function tailForPreview(text: string, max: number): string {
  if (text.length <= max) return text;
  const budget = max - ELLIPSIS.length;
  let start = text.length - budget;
  const space = text.slice(start).search(/\s/);
  if (space >= 0 && space < budget / 2) start += space;
  if (isLowSurrogate(text.charCodeAt(start))) start++;
  return ELLIPSIS + text.slice(start).trimStart();
}

export interface RenderTextOptions {
  /** Show every step with its full body ("Show details"). */
  expanded: boolean;
  /** Also show the phase label and the transient status line (default true). */
  header?: boolean;
  /**
   * Longest body an open, finished step shows when not expanded (default BODY_PREVIEW_CHARS). A
   * surface with no Show details (the terminal) passes Infinity, so a plan is shown whole.
   */
  openBodyChars?: number;
  /**
   * A collapsed decision (why the loop went on or stopped, why the model switched) keeps the first
   * line of its reason on its headline, `*— reason*`: a surface with no Show details still says why.
   */
  reasons?: boolean;
  /** How much of a running step's body (the latest of it) shows (default BODY_PREVIEW_CHARS). */
  runningBodyChars?: number;
  /** Longest headline (default HEADLINE_MAX_CHARS); the terminal wraps lines itself: Infinity. */
  headlineChars?: number;
}

/** Steps whose body is a one-line reason worth keeping on the headline (`reasons`). */
const REASON_KINDS = new Set<StepView['kind']>(['evaluation', 'model-switch', 'notice', 'warning']);

/**
 * The steps part of a view as plain Markdown: a collapsed step is its headline; an open step (or
 * every step when expanded) adds its body as a quote. Running thoughts show their latest lines.
 */
export function renderViewAsText(view: TurnView, options: RenderTextOptions): string {
  const blocks: string[] = [];
  if (options.header ?? true) {
    if (view.phase && !view.done) blocks.push(`*${view.phase}*`);
    if (view.status && !view.done) blocks.push(statusLine(view.status));
  }
  for (const step of view.steps) {
    const headline = stepHeadline(step, options.headlineChars);
    const body = step.body.trim();
    if ((step.collapsed && !options.expanded) || body === '') {
      const reason = options.reasons && REASON_KINDS.has(step.kind) ? body.split('\n')[0]!.trim() : '';
      blocks.push(reason ? `${headline} *— ${reason}*` : headline);
      continue;
    }
    const shown = options.expanded
      ? body
      : step.status === 'running'
        ? tailForPreview(body, options.runningBodyChars ?? BODY_PREVIEW_CHARS)
        : truncateForPreview(body, options.openBodyChars ?? BODY_PREVIEW_CHARS);
    blocks.push(`${headline}\n${quote(shown)}`);
  }
  return blocks.join('\n');
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => (line.trim() === '' ? '>' : `> ${line}`))
    .join('\n');
}

function lastWhitespace(text: string, before: number): number {
  for (let i = before; i > 0; i--) if (/\s/.test(text[i]!)) return i;
  return -1;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
