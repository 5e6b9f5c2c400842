/**
 * How many columns text takes in a terminal, and where a line wraps. The console's screen redraws its
 * live rows in place by moving the cursor up, so it must know how many rows each line took: it wraps
 * lines by the terminal's own rule. Escape sequences take no room, East Asian wide characters and
 * emoji take two columns, marks that combine with the character before them none, and a wide
 * character that does not fit at the end of a row starts the next one.
 */

/** Scout's own styling (SGR); model and web text reach the screen with every escape stripped. */
const SGR_AT = /\x1b\[[0-9;]*m/y;
const SGR_ALL = /\x1b\[[0-9;]*m/g;
const ZERO_WIDTH = /^(?:\p{M}|[\u200b-\u200f]|[\ufe00-\ufe0f])$/u;
const EMOJI = /\p{Emoji_Presentation}/u;

/** Code point ranges the terminal draws two columns wide (East Asian Wide and Fullwidth). */
const WIDE: Array<[number, number]> = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x3fffd],
];

const TAB_STOP = 8;

/** Columns one character takes. */
export function charWidth(char: string): number {
  const code = char.codePointAt(0)!;
  if (code < 0x300) return 1;
  if (ZERO_WIDTH.test(char)) return 0;
  for (const [from, to] of WIDE) if (code >= from && code <= to) return 2;
  return EMOJI.test(char) ? 2 : 1;
}

/** A row of a wrapped line: its characters are `line.slice(start, end)`. */
export interface RowSpan {
  start: number;
  end: number;
}

/** Where `line` (no newline in it) wraps in a terminal `columns` wide; an empty line is one row. */
export function wrapRows(line: string, columns: number): RowSpan[] {
  if (!Number.isFinite(columns)) return [{ start: 0, end: line.length }];
  const rows: RowSpan[] = [];
  let start = 0;
  let column = 0;
  let i = 0;
  while (i < line.length) {
    SGR_AT.lastIndex = i;
    if (SGR_AT.test(line)) {
      i = SGR_AT.lastIndex;
      continue;
    }
    const char = String.fromCodePoint(line.codePointAt(i)!);
    const width = char === '\t' ? TAB_STOP - (column % TAB_STOP) : charWidth(char);
    if (column + width > columns && column > 0) {
      rows.push({ start, end: i });
      start = i;
      column = 0;
      continue;
    }
    column += Math.min(width, columns);
    i += char.length;
  }
  rows.push({ start, end: line.length });
  return rows;
}

/** SGR parameters that end every style Scout uses (reset, normal intensity). */
const RESET = /^(?:0?|22)$/;

/**
 * The styling in force after `text` (starting from `before`): the SGR sequences since the last one
 * that reset it, so a row redrawn from the middle of a styled line starts with the same style. The
 * result stays short however long the line: Scout's own styles each end with a reset.
 */
export function activeStyle(text: string, before = ''): string {
  let style = before;
  for (const match of text.matchAll(SGR_ALL)) {
    style = RESET.test(match[0].slice(2, -1)) ? '' : style + match[0];
  }
  return style;
}
