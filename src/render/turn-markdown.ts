/**
 * The Markdown of what a turn shows besides its steps: the answer with its notice and footer, a plan
 * waiting for Run / Cancel, a tool call waiting for approval, and the working line.
 */
import { t } from '../i18n/translate.js';
import type { PlanProposal } from '../modes/plan/plan-types.js';
import type { Locale } from '../i18n/locale.js';
import type { ToolApprovalRequest, ToolCallOrigin } from '../tools/types.js';
import { KIND_ICON } from './icons.js';
import { fenceCloserLine, scanMarkdown } from './markdown-scan.js';
import { errorLine, statusLine } from './step-text.js';
import type { TurnView } from './view.js';
import { wellFormed } from './well-formed.js';

/** The Markdown the answer messages show together: the answer, then a notice, then the footer line. */
export function answerMarkdown(
  view: TurnView,
  footerLine?: (footer: string) => string,
  adapt: (markdown: string) => string = (markdown) => markdown,
): string {
  const parts: string[] = [];
  const answer = adapt(view.answer.trim());
  // A code block the model left open is closed once the answer is final: what follows (an error,
  // the footer) must not read as code, and every surface's messages end balanced.
  const open = view.done && answer ? scanMarkdown(answer).fenceAtEnd : null;
  if (answer) parts.push(open ? `${answer}\n${fenceCloserLine(open)}` : answer);
  if (view.error) parts.push(errorLine(view));
  if (view.done && answer && view.footer && footerLine) parts.push(footerLine(view.footer));
  return parts.join('\n\n');
}

/** A plan as Markdown: the prompt, then one numbered line per step with its tool. */
export function planMarkdown(plan: PlanProposal, locale: Locale): string {
  const lines = plan.steps.map(
    (s) => `${s.step}. ${s.description.replace(/\s+/g, ' ').trim()} \`${s.tool}\``,
  );
  return `${KIND_ICON.plan} ${t(locale, 'plan.prompt')}\n${lines.join('\n')}`;
}

/** Longest argument text an approval message shows (the model's arguments can be long). */
const APPROVAL_ARGUMENTS_CHARS = 1_200;
/** The start of the asker's message shown with an approval request. */
const APPROVAL_MESSAGE_CHARS = 160;

/**
 * A tool call waiting for approval as Markdown: which tool with exactly which arguments (or how much
 * of them is not shown), and where the request came from (the model chose it while answering whose
 * message, and whether it read earlier messages that could have asked for it).
 */
export function approvalMarkdown(request: ToolApprovalRequest, locale: Locale, maxChars: number): string {
  const label = request.title ? `${request.tool} (${request.title})` : request.tool;
  const head = t(locale, 'tool-approval.prompt', { tool: label });
  const origin = request.origin ? originMarkdown(request.origin, locale) : '';
  const room = Math.max(0, Math.min(APPROVAL_ARGUMENTS_CHARS, maxChars - head.length - origin.length - 300));
  const shown = request.arguments.slice(0, room);
  const cut = (request.argumentsCut ?? 0) + request.arguments.length - shown.length;
  // Arguments are model output: a fence keeps them from being read as Markdown or mentions.
  const parts = [`${head}\n\`\`\`json\n${shown.replaceAll('```', "'''")}\n\`\`\``];
  if (cut > 0) parts.push(t(locale, 'tool-approval.cut', { count: cut }));
  if (origin) parts.push(origin);
  // The cut above may fall inside a surrogate pair.
  return wellFormed(parts.join('\n'));
}

function originMarkdown(origin: ToolCallOrigin, locale: Locale): string {
  // The asker's words on one line, in a code span: shown as typed, never as Markdown or mentions.
  const line = origin.message.replace(/\s+/g, ' ').trim().replaceAll('`', "'");
  const cut = line.length > APPROVAL_MESSAGE_CHARS ? `${line.slice(0, APPROVAL_MESSAGE_CHARS)}…` : line;
  const message = `\`${cut || '…'}\``;
  const asker = origin.asker?.replace(/[`*_~<>@]/g, '').trim();
  const said = asker
    ? t(locale, 'tool-approval.origin', { asker, message })
    : t(locale, 'tool-approval.origin-unnamed', { message });
  return origin.readEarlier ? `${said}\n${t(locale, 'tool-approval.read-earlier')}` : said;
}

/** The working line of a steps message that has no step yet. */
export function workingLine(locale: Locale): string {
  return statusLine(t(locale, 'status.working'));
}
