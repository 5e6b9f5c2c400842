/**
 * Model answers, page titles and snippets are printed in a terminal: an escape sequence inside them
 * would be obeyed (OSC 0 retitles the window, CSI 2J clears the screen, OSC 52 writes the clipboard).
 * Everything the console prints that came from a model or the web passes through here first; Scout's
 * own styling (terminal-payloads.ts ANSI) is added afterwards, so it survives.
 */
import type { TurnView } from '../../src/render/view.js';

/**
 * Whole sequences: OSC (ESC ] … BEL or ST, also the 8-bit U+009D form), DCS/SOS/PM/APC strings
 * (ESC P/X/^/_ … ST), CSI (ESC [ or U+009B, parameters, final byte), and two-character escapes.
 */
const SEQUENCE =
  /(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)|\u001b[PX^_][^\u001b]*\u001b\\|(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b[ -~]/g;
/** Any control character left: C0 except tab and newline (CR too: it overwrites the line), DEL, C1. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** Sequences that start with these continue past their second character (CSI, OSC, DCS …). */
const LONG_SEQUENCE_START = /^(?:\u001b[[\]PX^_]|\u009b|\u009d)/;
const LONG_SEQUENCE =
  /^(?:(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)|\u001b[PX^_][^\u001b]*\u001b\\|(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~])/;
/** Longer than this, an unfinished sequence is not waited for (it is stripped as it is). */
const MAX_PENDING_CHARS = 256;

/** `text` without terminal control sequences or control characters (newline and tab kept). */
export function stripTerminalControls(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(SEQUENCE, '').replace(CONTROL, '');
}

/**
 * For text that is still growing (a streamed answer): the printable part and how much of the raw
 * text it covers. A sequence cut off at the end is held back until the rest of it arrives.
 */
export function stripStreamingControls(text: string): { safe: string; consumed: number } {
  const last = Math.max(text.lastIndexOf('\u001b'), text.lastIndexOf('\u009b'), text.lastIndexOf('\u009d'));
  const rest = last >= 0 ? text.slice(last) : '';
  const pending =
    rest !== '' &&
    rest.length <= MAX_PENDING_CHARS &&
    (rest.length === 1 || (LONG_SEQUENCE_START.test(rest) && !LONG_SEQUENCE.test(rest)));
  const ready = pending ? text.slice(0, last) : text;
  return { safe: stripTerminalControls(ready), consumed: ready.length };
}

/**
 * The parts of a view the steps message prints, made safe: step titles and bodies (search queries,
 * page titles, the model's reasoning), the status line and the phase label. The answer is made safe
 * where it is printed (terminal-payloads.ts), once per frame rather than once per token.
 */
export function safeStepsView(view: TurnView): TurnView {
  return {
    ...view,
    steps: view.steps.map((step) => ({
      ...step,
      title: stripTerminalControls(step.title),
      body: stripTerminalControls(step.body),
    })),
    status: view.status === null ? null : stripTerminalControls(view.status),
    ...(view.phase !== undefined ? { phase: stripTerminalControls(view.phase) } : {}),
  };
}
