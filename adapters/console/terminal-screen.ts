/**
 * The terminal's message primitives: a small screen the TurnRenderer posts, edits and removes
 * messages on, like a Slack channel. A message is a list of printed lines; the screen decides when
 * and how they reach the terminal.
 *
 * - On a TTY the screen draws at once (at most every REDRAW_INTERVAL_MS) and keeps the last rows it
 *   drew *live*: an edit redraws them in place (cursor up, erase below, print again from the first
 *   row that changed). Only the rows that still fit on the screen can be redrawn; older rows have
 *   scrolled into the terminal's scrollback and are *frozen*, printed for good.
 * - Without a TTY (a pipe, `--once`) nothing is drawn until `commit` (a question is about to be
 *   asked) or `close` (the turn is done): then the state of every message is printed once, in order,
 *   and frozen. Scripts read each message once, in its final state.
 *
 * An edit to a message whose top is frozen shows what the frozen rows cannot: a message that only
 * grows (`edits: 'continue'`, the answer) goes on after its frozen text, and a line changed above
 * stays as it was printed; a message whose lines change status (`edits: 'reprint'`, the steps)
 * prints again, below, every line not already printed for good — a step that finished after a
 * question was asked shows its ✅ under the question; no line shows twice as it is, none is lost.
 */
import type { MessageWriter } from '../../src/render/message-writer.js';
import { activeStyle, wrapRows } from './terminal-rows.js';

/** What one terminal message shows. */
export interface TerminalPayload {
  /** Printable lines (styled for this output, escape sequences from models and the web stripped). */
  lines: string[];
  /** How an edit shows once the top of the message is frozen (see the file comment). */
  edits: 'continue' | 'reprint';
}

export interface ScreenOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

/** Redraws at most this often: smooth enough to read, cheap enough not to flicker. */
export const REDRAW_INTERVAL_MS = 50;
/** A pty with no size set reports 0 columns and rows: count the usual 80 × 24. */
const DEFAULT_COLUMNS = 80;
const DEFAULT_ROWS = 24;

/** Where the frozen part of a message ends. */
type Frozen =
  /** `continue`: whole lines frozen, then that many characters (a row boundary) of the next line. */
  | { kind: 'continue'; lines: number; chars: number }
  /** `reprint`: the lines printed for good, in order. */
  | { kind: 'reprint'; shown: string[] };

interface Message {
  payload: TerminalPayload;
  frozen: Frozen | undefined;
}

/** One row of the live area: its text (with the style in force at its start) and how to freeze it. */
interface Row {
  text: string;
  /** The last row of a line: a newline follows it. */
  lineEnd: boolean;
  /** Part of a reprinted line: it freezes only whole. */
  wholeLine: boolean;
  freeze(): void;
}

export class TerminalScreen implements MessageWriter<TerminalPayload, number> {
  readonly #out: ScreenOutput;
  readonly #messages = new Map<number, Message>();
  #nextId = 1;
  /** The live rows as drawn; the cursor sits at the start of the line below the last one. */
  #drawn: Row[] = [];
  /** Something of this turn is printed for good (a note above the live rows would split it). */
  #frozenAny = false;
  /** Shown while no message is posted yet (the turn is working, nothing to show yet). */
  #placeholder: string[] = [];
  /** Typed-ahead notes that arrived once part of the turn was printed for good: shown at `close`. */
  readonly #notes: string[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastDrawAt = Number.NEGATIVE_INFINITY;
  #closed = false;

  constructor(output: ScreenOutput) {
    this.#out = output;
  }

  get #live(): boolean {
    return Boolean(this.#out.isTTY);
  }

  async post(payload: TerminalPayload): Promise<number> {
    const id = this.#nextId++;
    this.#messages.set(id, { payload, frozen: undefined });
    this.#changed();
    return id;
  }

  async edit(id: number, payload: TerminalPayload): Promise<void> {
    const message = this.#messages.get(id);
    if (!message) return;
    message.payload = payload;
    this.#changed();
  }

  /** What was printed for good stays in the scrollback; the rest of the message goes. */
  async remove(id: number): Promise<void> {
    if (this.#messages.delete(id)) this.#changed();
  }

  /** Lines shown while no message is posted yet (a TTY only): "⏳ Working…" before the first event. */
  placeholder(lines: string[]): void {
    this.#placeholder = lines;
    this.#changed();
  }

  /**
   * A line of our own above the live rows (a TTY only): a typed-ahead note, a command's reply. While
   * nothing of the turn is frozen it goes above the turn at once; otherwise it would split the
   * turn's text, so it waits for `close`.
   */
  note(text: string): void {
    if (!this.#live) return;
    if (this.#frozenAny && !this.#closed) {
      this.#notes.push(text);
      return;
    }
    this.#printAbove(`${text}\n`);
  }

  /** Prints text that is not part of the turn (a command's reply); the placeholder goes. */
  print(text: string): void {
    this.#placeholder = [];
    this.#printAbove(text);
  }

  /** Draws what is pending and freezes it: a question is about to be asked below it. */
  commit(): void {
    this.#cancelTimer();
    this.#draw();
    this.#freeze(this.#drawn.length);
  }

  /** The turn is done: its final state is printed for good, then the notes that waited. */
  close(): void {
    if (this.#closed) return;
    this.#placeholder = [];
    this.commit();
    this.#closed = true;
    for (const note of this.#notes.splice(0)) this.#out.write(`${note}\n`);
  }

  #changed(): void {
    if (this.#closed || !this.#live || this.#timer) return;
    const wait = this.#lastDrawAt + REDRAW_INTERVAL_MS - performance.now();
    if (wait <= 0) {
      this.#draw();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#draw();
    }, wait);
  }

  #cancelTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Erases the live rows, prints `text`, then draws the live rows again below it. */
  #printAbove(text: string): void {
    this.#cancelTimer();
    this.#out.write(`${this.#rewind(this.#drawn.length)}${text}`);
    this.#drawn = [];
    if (this.#live) this.#draw();
  }

  /** Moves the cursor up `rows` rows to their first column and erases everything below. */
  #rewind(rows: number): string {
    return rows > 0 ? `\x1b[${rows}A\x1b[G\x1b[J` : '';
  }

  /** Redraws the live rows from the first one that changed, then freezes what no longer fits. */
  #draw(): void {
    if (this.#closed) return;
    this.#lastDrawAt = performance.now();
    const rows = this.#liveRows();
    let same = 0;
    while (
      same < rows.length &&
      same < this.#drawn.length &&
      rows[same]!.text === this.#drawn[same]!.text &&
      rows[same]!.lineEnd === this.#drawn[same]!.lineEnd
    )
      same++;
    if (same < rows.length || same < this.#drawn.length) {
      let text = this.#rewind(this.#drawn.length - same);
      for (const row of rows.slice(same)) text += row.lineEnd ? `${row.text}\n` : row.text;
      this.#out.write(text);
    }
    this.#drawn = rows;
    // A pipe has no live rows: everything drawn is printed for good.
    const fits = this.#live ? (this.#out.rows || DEFAULT_ROWS) - 1 : 0;
    if (rows.length > fits) this.#freeze(rows.length - fits);
  }

  /** Freezes the first `count` drawn rows (and the rest of a reprinted line cut by the boundary). */
  #freeze(count: number): void {
    let end = count;
    while (
      end > 0 &&
      end < this.#drawn.length &&
      !this.#drawn[end - 1]!.lineEnd &&
      this.#drawn[end - 1]!.wholeLine
    )
      end++;
    for (const row of this.#drawn.slice(0, end)) row.freeze();
    if (end > 0) this.#frozenAny = true;
    this.#drawn = this.#drawn.slice(end);
  }

  #liveRows(): Row[] {
    const columns = this.#live ? this.#out.columns || DEFAULT_COLUMNS : Number.POSITIVE_INFINITY;
    const rows: Row[] = [];
    if (this.#messages.size === 0)
      for (const line of this.#placeholder) rows.push(...lineRows(line, 0, columns, false, () => undefined));
    for (const message of this.#messages.values()) {
      if (message.payload.edits === 'continue') rows.push(...continuedRows(message, columns));
      else rows.push(...reprintedRows(message, columns));
    }
    return rows;
  }
}

/** The rows of `line` from character `from` on; `freezeAt(end, lineEnd)` records a frozen row. */
function lineRows(
  line: string,
  from: number,
  columns: number,
  wholeLine: boolean,
  freezeAt: (end: number, lineEnd: boolean) => void,
): Row[] {
  const rest = line.slice(from);
  const spans = wrapRows(rest, columns);
  // Each row starts with the style in force where it starts (carried from row to row).
  let style = from > 0 ? activeStyle(line.slice(0, from)) : '';
  return spans.map((span, i) => {
    const lineEnd = i === spans.length - 1;
    const segment = rest.slice(span.start, span.end);
    const text = style + segment;
    style = activeStyle(segment, style);
    return { text, lineEnd, wholeLine, freeze: () => freezeAt(from + span.end, lineEnd) };
  });
}

/** A message that grows: its lines after the frozen part. */
function continuedRows(message: Message, columns: number): Row[] {
  const frozen =
    message.frozen?.kind === 'continue' ? message.frozen : { kind: 'continue' as const, lines: 0, chars: 0 };
  const { lines } = message.payload;
  const rows: Row[] = [];
  for (let i = frozen.lines; i < lines.length; i++) {
    const from = i === frozen.lines ? Math.min(frozen.chars, lines[i]!.length) : 0;
    rows.push(
      ...lineRows(lines[i]!, from, columns, false, (end, lineEnd) => {
        message.frozen = lineEnd
          ? { kind: 'continue', lines: i + 1, chars: 0 }
          : { kind: 'continue', lines: i, chars: end };
      }),
    );
  }
  return rows;
}

/** A message whose lines change: every line not already printed for good (all of them at first). */
function reprintedRows(message: Message, columns: number): Row[] {
  const shown = message.frozen?.kind === 'reprint' ? message.frozen.shown : [];
  const { lines } = message.payload;
  const fresh = shown.length === 0 ? lines : notShown(lines, shown);
  return fresh.flatMap((line) =>
    lineRows(line, 0, columns, true, (_end, lineEnd) => {
      if (!lineEnd) return;
      if (message.frozen?.kind !== 'reprint') message.frozen = { kind: 'reprint', shown: [] };
      message.frozen.shown.push(line);
    }),
  );
}

/**
 * The lines of `lines` not already printed for good, in order. A line printed once counts wherever it
 * stands (a reprinted line sits below the ones it replaced, so order cannot tell); equal lines count
 * as often as they were printed. Blank lines are layout, not content: only the message's closing
 * blank line is kept.
 */
function notShown(lines: string[], shown: string[]): string[] {
  const printed = new Map<string, number>();
  for (const line of shown) if (line !== '') printed.set(line, (printed.get(line) ?? 0) + 1);
  const fresh = lines.filter((line) => {
    if (line === '') return false;
    const times = printed.get(line) ?? 0;
    if (times === 0) return true;
    printed.set(line, times - 1);
    return false;
  });
  // The message's closing blank line, unless it is printed for good already under its last line.
  if (lines.at(-1) === '' && (fresh.length > 0 || shown.at(-1) !== '')) fresh.push('');
  return fresh;
}
