/**
 * The steps message's text: `renderViewAsText` (shared with the console) fitted to one Discord
 * message. Expanded details that do not fit have their bodies shortened, then dropped, before the
 * text is cut; the working model stays visible as a small label once the turn is done.
 */
import { renderViewAsText, truncateForPreview } from '../../src/render/step-text.js';
import type { TurnView } from '../../src/render/view.js';

/** Discord's content limit per message. */
export const DISCORD_MAX_CHARS = 2000;
/** Body lengths tried in turn when expanded details do not fit one message. */
const BODY_BUDGETS = [1200, 600, 300, 120];

export function renderStepsText(
  view: TurnView,
  options: { expanded: boolean; workingText?: string },
): string {
  const compose = (v: TurnView, expanded: boolean) => {
    const parts: string[] = [];
    if (v.done && v.phase) parts.push(`-# ${v.phase}`);
    const steps = renderViewAsText(v, { expanded });
    if (steps) parts.push(steps);
    else if (!v.done && options.workingText) parts.push(options.workingText);
    return parts.join('\n');
  };
  const full = compose(view, options.expanded);
  if (full.length <= DISCORD_MAX_CHARS) return full;
  for (const budget of BODY_BUDGETS) {
    const shorter = {
      ...view,
      steps: view.steps.map((step) => ({ ...step, body: truncateForPreview(step.body.trim(), budget) })),
    };
    const text = compose(shorter, options.expanded);
    if (text.length <= DISCORD_MAX_CHARS) return text;
  }
  const headlines = compose({ ...view, steps: view.steps.map((step) => ({ ...step, body: '' })) }, false);
  return headlines.length <= DISCORD_MAX_CHARS ? headlines : truncateForPreview(headlines, DISCORD_MAX_CHARS);
}

/** Whether a Show/Hide details button has anything to reveal or hide. */
export function hasDetails(view: TurnView): boolean {
  return view.steps.some((step) => step.body.trim() !== '');
}
