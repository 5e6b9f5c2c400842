/**
 * A small terminal emulator for tests: it plays bytes written to a terminal and gives back what a
 * person would read — the scrollback and the screen — so a test can check that redraws in place
 * leave every line once, in order. It knows what Scout and readline write: text (wide characters
 * take two columns, a full row wraps), CR, LF, cursor up / forward / back / to a column, erase below
 * and erase to the end of the line. The cursor cannot move above the top of the screen: rows that
 * scrolled into the scrollback cannot be rewritten, as in a real terminal.
 */
import { charWidth } from '../../adapters/console/terminal-rows.js';

export class TerminalEmulator {
  /** Scrollback and screen: every row ever shown, the screen being the last `rows` of them. */
  readonly #lines: string[][] = [[]];
  #row = 0;
  #column = 0;
  /** The last column was written: the next character wraps first (xterm's pending wrap). */
  #pendingWrap = false;
  #scrolled = 0;
  /** Rows that continue on the next row because the text wrapped (not because of a newline). */
  readonly #wrapped = new Set<number>();

  constructor(
    readonly columns = 80,
    readonly rows = 24,
  ) {}

  write(data: string): void {
    let i = 0;
    while (i < data.length) {
      const csi = /^\x1b\[([0-9;?]*)([ -/]*)([@-~])/.exec(data.slice(i, i + 32));
      if (csi) {
        this.#control(csi[1] ?? '', csi[3]!);
        i += csi[0].length;
        continue;
      }
      const char = String.fromCodePoint(data.codePointAt(i)!);
      i += char.length;
      if (char === '\n') this.#lineFeed();
      else if (char === '\r') this.#moveTo(this.#row, 0);
      else if (char === '\x07' || char === '\x1b') continue;
      else this.#print(char);
    }
  }

  /** Every row as text (trailing spaces trimmed), scrollback first. */
  text(): string {
    return this.#lines.map((cells) => cells.join('').trimEnd()).join('\n');
  }

  /** The lines as written: rows that only wrapped joined again (what copying the text gives). */
  lines(): string[] {
    const lines: string[] = [];
    let current = '';
    this.#lines.forEach((cells, row) => {
      const text = cells.join('');
      if (this.#wrapped.has(row)) current += text;
      else {
        lines.push(current + text);
        current = '';
      }
    });
    return lines;
  }

  /** The first row of the screen: rows above it scrolled away (erasing below never brings them back). */
  #top(): number {
    return this.#scrolled;
  }

  #lineFeed(): void {
    this.#pendingWrap = false;
    this.#row++;
    this.#column = 0;
    while (this.#lines.length <= this.#row) this.#lines.push([]);
    this.#scrolled = Math.max(this.#scrolled, this.#lines.length - this.rows);
  }

  #moveTo(row: number, column: number): void {
    this.#pendingWrap = false;
    this.#row = Math.min(Math.max(row, this.#top()), this.#lines.length - 1);
    this.#column = Math.min(Math.max(column, 0), this.columns - 1);
  }

  #print(char: string): void {
    const width = charWidth(char);
    if (width === 0) {
      const cells = this.#lines[this.#row]!;
      const at = Math.max(0, this.#column - 1);
      cells[at] = (cells[at] ?? ' ') + char;
      return;
    }
    if (this.#pendingWrap || this.#column + width > this.columns) {
      this.#wrapped.add(this.#row);
      this.#lineFeed();
    }
    const cells = this.#lines[this.#row]!;
    while (cells.length < this.#column) cells.push(' ');
    cells[this.#column] = char;
    // The second cell of a wide character holds nothing of its own.
    if (width === 2) cells[this.#column + 1] = '';
    this.#column += width;
    if (this.#column >= this.columns) {
      this.#column = this.columns - 1;
      this.#pendingWrap = true;
    }
  }

  #control(params: string, final: string): void {
    const n = Number.parseInt(params || '1', 10) || 1;
    switch (final) {
      case 'A':
        this.#moveTo(this.#row - n, this.#column);
        break;
      case 'B':
        this.#moveTo(this.#row + n, this.#column);
        break;
      case 'C':
        this.#moveTo(this.#row, this.#column + n);
        break;
      case 'D':
        this.#moveTo(this.#row, this.#column - n);
        break;
      case 'G':
        this.#moveTo(this.#row, n - 1);
        break;
      case 'J':
        // Erase below (0, the default): the rest of this row and every row under it.
        if (params === '' || params === '0') {
          this.#lines[this.#row]!.length = Math.min(this.#lines[this.#row]!.length, this.#column);
          this.#lines.length = this.#row + 1;
          for (const row of this.#wrapped) if (row >= this.#row) this.#wrapped.delete(row);
        }
        break;
      case 'K':
        if (params === '' || params === '0')
          this.#lines[this.#row]!.length = Math.min(this.#lines[this.#row]!.length, this.#column);
        break;
      default:
      // Styling (m) and anything else changes no text.
    }
  }
}
