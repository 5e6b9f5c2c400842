/**
 * Turns a finished view into terminal text: steps as one line each (with body when expanded),
 * Markdown links as readable text, references and the statistics footer dimmed.
 */
import { errorLine, stepHeadline } from '../../src/render/step-text.js';
import type { StepView, TurnView } from '../../src/render/view.js';

export interface Style {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
}

export const ANSI: Style = {
  dim: (s) => `\x1b[2m${s}\x1b[22m`,
  bold: (s) => `\x1b[1m${s}\x1b[22m`,
  red: (s) => `\x1b[31m${s}\x1b[39m`,
  cyan: (s) => `\x1b[36m${s}\x1b[39m`,
};

export const PLAIN: Style = { dim: (s) => s, bold: (s) => s, red: (s) => s, cyan: (s) => s };

/** Lines of the thinking body shown while it streams (the rest scrolls away). */
const LIVE_BODY_LINES = 4;

export function stepLines(step: StepView, style: Style, options: { live?: boolean } = {}): string[] {
  // The terminal wraps long lines itself: the headline is not cut.
  const head = stepHeadline(step, Number.POSITIVE_INFINITY);
  if (!step.body.trim()) return [head];
  if (step.collapsed) {
    // A collapsed decision (why the loop stopped, why the model switched) still says why, on one line.
    const reason = SUMMARY_KINDS.has(step.kind) ? step.body.trim().split('\n')[0] : undefined;
    return [reason ? `${head} ${style.dim(`— ${reason}`)}` : head];
  }
  let body = step.body.trimEnd().split('\n');
  if (options.live && step.kind === 'thinking') body = body.slice(-LIVE_BODY_LINES);
  return [head, ...body.map((line) => style.dim(`   ${line}`))];
}

/** Steps whose body is a one-line reason worth showing even when collapsed. */
const SUMMARY_KINDS = new Set<StepView['kind']>(['evaluation', 'model-switch', 'notice']);

/** `[[1]](https://…)` → `[1]`; `[title](url)` → `title <url>`; bold markers dropped. */
export function markdownToTerminal(markdown: string): string {
  return markdown
    .replace(/\[\[(\d+)\]\]\([^)\s]+\)/g, '[$1]')
    .replace(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, '$1 <$2>')
    .replace(/\*\*([^*\n]+)\*\*/g, '$1');
}

/** The whole turn as text (used by `--once` and when output is not a terminal). */
export function renderTurnText(view: TurnView, style: Style): string {
  const out: string[] = [];
  for (const step of view.steps) out.push(...stepLines(step, style));
  if (out.length > 0) out.push('');
  if (view.answer) out.push(markdownToTerminal(view.answer), '');
  if (view.error) out.push(style.red(errorLine(view)), '');
  if (view.footer) out.push(style.dim(view.footer));
  return `${out.join('\n').trimEnd()}\n`;
}
