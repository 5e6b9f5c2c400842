/**
 * Which source lines of the answer each message shows: ranges of line indices, and a counter that
 * finds the lines of a part of the text without counting the same newlines twice. LiveAnswer uses
 * them to keep any line from showing in two messages at once.
 */

/** Source lines `[from, to)` (line indices in the answer's text); empty when `to <= from`. */
export interface LineRange {
  from: number;
  to: number;
}

export const NO_LINES: LineRange = { from: 0, to: 0 };

/** The lines a part may show now (see `Part.showing`). */
export function shown(part: {
  showing: LineRange;
  flying: LineRange | undefined;
  latest: LineRange | undefined;
}) {
  return span(span(part.showing, part.flying ?? NO_LINES), part.latest ?? NO_LINES);
}

/** The smallest range holding both (an empty one adds nothing). */
export function span(a: LineRange, b: LineRange): LineRange {
  if (b.to <= b.from) return a;
  if (a.to <= a.from) return b;
  return { from: Math.min(a.from, b.from), to: Math.max(a.to, b.to) };
}

export function sameLines(a: LineRange, b: LineRange): boolean {
  return a.from === b.from && a.to === b.to;
}

export function overlaps(a: LineRange, b: LineRange): boolean {
  return a.from < a.to && b.from < b.to && a.from < b.to && b.from < a.to;
}

/**
 * Line indices of offsets in `text`, counted forwards from `from` (whose line index is `base`):
 * offsets asked for must not decrease, so a reconcile counts the newlines of its tail once.
 */
export function lineCounter(text: string, from: number, base: number) {
  let pos = from;
  let line = base;
  const at = (offset: number): number => {
    for (; pos < offset; pos++) if (text.charCodeAt(pos) === 10) line++;
    return line;
  };
  return {
    at,
    /**
     * The lines of `[start, end)`: a line cut in the middle belongs to the part where it starts, so
     * two neighbours never both claim it.
     */
    range(start: number, end: number): LineRange {
      const continued = start > 0 && text.charCodeAt(start - 1) !== 10 ? 1 : 0;
      const first = at(start) + continued;
      const open = end > start && text.charCodeAt(end - 1) !== 10 ? 1 : 0;
      return { from: first, to: at(end) + open };
    },
  };
}
