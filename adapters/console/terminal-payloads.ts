/**
 * The terminal's payload builders: what the TurnRenderer decided to show (the steps as Markdown from
 * src/render/step-text.ts, answer parts, a tool approval), turned into printable lines. ANSI styling
 * on a terminal, plain text on a pipe; every escape sequence that came from a model or the web is
 * stripped here, before Scout's own styling is added.
 *
 * The controls of other surfaces have terminal equivalents: Stop is Ctrl-C, so the steps message
 * shows the status line exactly while Stop would show (the turn runs, no answer yet); Run / Cancel
 * and Approve / Deny are y/n questions at the prompt, asked by the sink.
 *
 * This file and console-sink.ts are where the terminal's words are said in a locale: the chat around
 * the turns (console-surface.ts) hands phrases on.
 */
import { approvalChoice } from '../../src/render/controls.js';
import { renderViewAsText } from '../../src/render/step-text.js';
import { workingLine } from '../../src/render/turn-markdown.js';
import type { PayloadBuilders } from '../../src/render/renderer-options.js';
import { t } from '../../src/i18n/translate.js';
import type { Locale } from '../../src/surface.js';
import { safeStepsView, stripStreamingControls, stripTerminalControls } from './terminal-safe.js';
import type { TerminalPayload } from './terminal-screen.js';

export interface Style {
  dim(text: string): string;
  bold(text: string): string;
}

export const ANSI: Style = {
  dim: (s) => `\x1b[2m${s}\x1b[22m`,
  bold: (s) => `\x1b[1m${s}\x1b[22m`,
};

export const PLAIN: Style = { dim: (s) => s, bold: (s) => s };

/**
 * The latest of a running step's body a terminal shows: about four lines of 80 columns, so a
 * streaming thought stays within the rows that are redrawn and is gone, not left in the scrollback,
 * once it collapses.
 */
const LIVE_BODY_CHARS = 320;

/** A terminal has no message limit: the answer is one message, however long. */
export const TERMINAL_ANSWER_CHARS = Number.MAX_SAFE_INTEGER;

/**
 * Markdown as terminal text: `[[1]](https://…)` → `[1]` (the References list below gives the
 * address), `[title](url)` → `title <url>`, `**bold**` bold, `*emphasis*` dim. Everything else
 * (code fences, lists, headings) reads well as it is.
 */
export function markdownToTerminal(markdown: string, style: Style): string {
  return markdown
    .replace(/\[\[(\d+)\]\]\([^)\s]+\)/g, '[$1]')
    .replace(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, '$1 <$2>')
    .replace(/\*\*([^*\n]+)\*\*/g, (_m, text: string) => style.bold(text))
    .replace(
      /(^|[^*\w])\*([^*\s][^*\n]*?)\*(?![*\w])/g,
      (_m, before: string, text: string) => `${before}${style.dim(text)}`,
    );
}

/**
 * A steps-Markdown line: a quoted body line becomes a dim, indented one. A blank body line keeps its
 * indent: an empty line is where the steps message ends.
 */
function stepLine(line: string, style: Style): string {
  if (line === '>') return style.dim('   ');
  if (line.startsWith('> ')) return style.dim(`   ${line.slice(2)}`);
  return markdownToTerminal(line, style);
}

export function terminalPayloads(style: Style, locale: Locale): PayloadBuilders<TerminalPayload> {
  return {
    steps(view, controls) {
      let markdown = renderViewAsText(safeStepsView(view), {
        expanded: false,
        // The status line lives while the turn works and no answer shows: never above an answer.
        header: controls.stop,
        openBodyChars: Number.POSITIVE_INFINITY,
        runningBodyChars: LIVE_BODY_CHARS,
        headlineChars: Number.POSITIVE_INFINITY,
        reasons: true,
      });
      if (!markdown && controls.stop) markdown = workingLine(locale);
      // Once finished with nothing to show, the message is empty rather than left at "Working…".
      const lines = markdown ? [...markdown.split('\n').map((line) => stepLine(line, style)), ''] : [];
      return { lines, edits: 'reprint' };
    },

    answerPart(markdown, controls) {
      // While the answer streams, an escape sequence cut off at the end waits for the rest of it.
      const safe = controls.stop ? stripStreamingControls(markdown).safe : stripTerminalControls(markdown);
      const lines = markdownToTerminal(safe, style).split('\n');
      if (controls.footer) lines.push('', style.dim(stripTerminalControls(controls.footer)));
      // A blank line under the finished answer; a streaming one ends at its last character.
      if (!controls.stop) lines.push('');
      return { lines, edits: 'continue' };
    },

    // The plan is the open plan step of the steps message just above, shown whole; the question and
    // its y/n are the prompt's. A plan message would print the same steps a second time.
    planPart: () => ({ lines: [], edits: 'continue' }),

    approvalPart(markdown, controls) {
      const lines = markdownToTerminal(stripTerminalControls(markdown), style).split('\n');
      // The buttons are a y/n at the prompt, under the request; the outcome follows the answer to it.
      const { outcome } = approvalChoice(controls, locale);
      if (outcome) lines.push(outcome, '');
      return { lines, edits: 'continue' };
    },
  };
}

/** A command's reply (Slack-flavoured Markdown) as terminal text: no literal `*` or backtick marks. */
export function replyText(text: string, style: Style): string {
  const plain = stripTerminalControls(text)
    .replace(/\*([^*\n]+)\*/g, '$1')
    .replace(/`([^`\n]+)`/g, '$1');
  return markdownToTerminal(plain, style);
}

/** The chat's own lines outside a turn, which console-surface.ts writes: its banner, the quit hint. */
export function chatLine(locale: Locale, line: 'banner' | 'quit-hint'): string {
  return t(locale, `console.${line}`);
}
