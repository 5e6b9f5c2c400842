/**
 * A light, line-based scan of Markdown for the splitter: where fenced code blocks open and close,
 * which lines are blank, headings or table rows, and which character ranges (links, inline code,
 * URLs) must not be cut in half. Not a Markdown parser: just enough structure to split safely.
 */

export interface Fence {
  /** Indentation of the opening fence, capped at 3 spaces so a reopened fence stays a fence. */
  indent: string;
  char: '`' | '~';
  /** Number of fence characters (a closer needs at least as many). */
  length: number;
  /** The language tag (first word of the info string), kept when a fence is reopened. */
  lang: string;
}

export interface LineInfo {
  start: number;
  /** Index of the line's `\n`, or the text's length for the last line. */
  end: number;
  /** The fence open at the start of this line (null outside code blocks). */
  fenceBefore: Fence | null;
  isOpener: boolean;
  isCloser: boolean;
  blank: boolean;
  heading: boolean;
  tableRow: boolean;
}

export interface MarkdownScan {
  lines: LineInfo[];
  /** The fence still open at the end of the text (a streamed answer may end mid-block). */
  fenceAtEnd: Fence | null;
  /** 1 at positions strictly inside a link, inline code or URL: a cut there would break it. */
  noBreak: Uint8Array;
}

/** Longest language tag kept on a reopened fence; info strings are short in practice. */
const MAX_LANG_CHARS = 20;

const OPENER = /^(\s*)(`{3,}|~{3,})(.*)$/;
const HEADING = /^\s{0,3}#{1,6}\s/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;

/**
 * Spans a cut must not enter: Markdown links and images (`[text](url "title")`), inline code,
 * autolinks and Slack-style links (`<url|text>`), bare URLs — and a link or inline code still open
 * at the end of the text (a streamed answer's frontier), so a part frozen mid-stream never cuts one.
 */
const PROTECTED =
  /!?\[[^\]\n]*\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+"[^"\n]*")?\)|`[^`\n]+`|<(?:https?|mailto):[^>\s]*(?:\|[^>\n]*)?>|https?:\/\/[^\s<>()[\]]+|!?\[[^\]\n]*(?:\]\([^)\n]*)?$|`[^`\n]*$/g;

/**
 * Scans `text` from `startAt` (a line start) on, with `fence` open there. A caller that already
 * knows the state at a point (a streamed answer's frozen parts) skips rescanning what lies before.
 */
export function scanMarkdown(text: string, startAt = 0, fence: Fence | null = null): MarkdownScan {
  const lines: LineInfo[] = [];
  let open: Fence | null = fence;
  let start = startAt;
  while (start <= text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const line = text.slice(start, end);
    const info: LineInfo = {
      start,
      end,
      fenceBefore: open,
      isOpener: false,
      isCloser: false,
      blank: line.trim() === '',
      heading: false,
      tableRow: false,
    };
    if (open) {
      if (isCloser(line, open)) {
        info.isCloser = true;
        open = null;
      }
    } else {
      const fence = parseOpener(line);
      if (fence) {
        info.isOpener = true;
        open = fence;
      } else {
        info.heading = HEADING.test(line);
        info.tableRow = TABLE_ROW.test(line);
      }
    }
    lines.push(info);
    if (newline === -1) break;
    start = newline + 1;
  }
  return { lines, fenceAtEnd: open, noBreak: protectedPositions(text, startAt) };
}

function parseOpener(line: string): Fence | null {
  const match = OPENER.exec(line);
  if (!match) return null;
  const [, indent = '', marker = '', info = ''] = match;
  const char = marker[0] as '`' | '~';
  // CommonMark: a backtick fence's info string may not contain backticks (that is inline code).
  if (char === '`' && info.includes('`')) return null;
  let lang = (info.trim().split(/\s+/)[0] ?? '').slice(0, MAX_LANG_CHARS);
  // A cut inside a surrogate pair would repeat half an emoji on every reopened fence.
  if (/[\uD800-\uDBFF]$/.test(lang)) lang = lang.slice(0, -1);
  return { indent: indent.replace(/\t/g, '    ').slice(0, 3), char, length: marker.length, lang };
}

function isCloser(line: string, fence: Fence): boolean {
  const trimmed = line.trim();
  if (trimmed.length < fence.length) return false;
  for (const c of trimmed) if (c !== fence.char) return false;
  return true;
}

/** The line that reopens `fence` at the top of a continuation part. */
export function fenceOpenerLine(fence: Fence): string {
  return fence.indent + fence.char.repeat(fence.length) + fence.lang;
}

/** The line that closes `fence` at the bottom of a part cut inside it. */
export function fenceCloserLine(fence: Fence): string {
  return fence.indent + fence.char.repeat(fence.length);
}

function protectedPositions(text: string, startAt: number): Uint8Array {
  const noBreak = new Uint8Array(text.length + 1);
  const pattern = new RegExp(PROTECTED.source, 'g');
  pattern.lastIndex = startAt;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    noBreak.fill(1, match.index + 1, match.index + match[0].length);
  }
  return noBreak;
}

/** The line start at or before `pos` and the fence open there (scanning from `startAt`). */
export function stateAt(
  text: string,
  pos: number,
  startAt = 0,
  fence: Fence | null = null,
): { lineStart: number; fence: Fence | null } {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  const head = scanMarkdown(text.slice(0, lineStart), startAt, fence);
  return { lineStart: Math.max(lineStart, startAt), fence: lineStart > startAt ? head.fenceAtEnd : fence };
}

/** Index of the line containing `pos` (binary search over line starts). */
export function lineIndexAt(lines: LineInfo[], pos: number): number {
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lines[mid]!.start <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
