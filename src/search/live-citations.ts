/**
 * Citations linked while the answer streams (issue 58 item 2). The answer model writes `[n]`
 * markers; linkCitations links them once the answer is complete. Until then every frame would show
 * raw markers — and a thread whose final edit waits for Slack's workspace budget kept showing them.
 * `LiveCitations` links them as they arrive instead, with the same rule (`linkMarkers`, code left
 * alone as `codeSpans` finds it), so what a reader sees of a streaming answer is always a prefix of
 * the final body: the final only adds the References section, and Slack's native stream can carry
 * it in its own stop (no edit after it).
 *
 * linkCitations keeps the model's numbers (the registry numbered the sources before the answer
 * began), so nothing earlier ever changes; what could still change is held back until it cannot:
 *
 * - a marker still arriving (`[`, `[1`, `[1, 2`) and a complete one at the very end (`[1]` followed
 *   by `(` is a link the model wrote, not a marker), with the whitespace before it (an unknown
 *   marker goes with its spaces);
 * - trailing whitespace (the final text is trimmed);
 * - after a backtick that nothing closed yet on the last line, any `[`: the rest of the line may
 *   still turn out to be a code span (its markers stay raw) or prose (linked). Text without
 *   markers reads the same either way and is shown.
 *
 * Work per chunk is bounded by the text since the last safe restart point (a line break in prose
 * or the end of a closed code block), not by the whole answer.
 */
import type { Source } from '../render/events.js';
import { codeSpans, linkedBody, linkMarkers } from './citations.js';

export class LiveCitations {
  readonly #byNumber: ReadonlyMap<number, Source>;
  /** The model's text since the last restart point. */
  #tail = '';
  /** Linked text before the restart point not given out yet (trailing whitespace held back). */
  #owed = '';
  /** How much of the tail's linked text was given out. */
  #given = 0;

  constructor(sources: readonly Source[]) {
    this.#byNumber = new Map(sources.map((s) => [s.n, s]));
  }

  /**
   * Takes the model's next chunk; returns the linked text to append to what was given so far ('' while
   * what arrived could still change). Everything given, in order, is a prefix of
   * `linkCitations(whole answer).text`.
   */
  push(chunk: string): string {
    this.#tail += chunk;
    const settled = settle(this.#tail, this.#byNumber);
    const visible = settled.shown.trimEnd();
    let out = '';
    if (visible.length > this.#given) {
      out = (this.#given === 0 ? this.#owed : '') + visible.slice(this.#given);
      if (this.#given === 0) this.#owed = '';
      this.#given = visible.length;
    }
    if (settled.restart > 0) {
      const head = settled.restartShown;
      if (this.#given >= head.length) this.#given -= head.length;
      else {
        // Only whitespace can be left over here: everything before the restart's line break that
        // is not trailing whitespace was given out above.
        this.#owed += head.slice(this.#given);
        this.#given = 0;
      }
      this.#tail = this.#tail.slice(settled.restart);
    }
    return out;
  }

  /**
   * The stream ended before its final text (stopped, or failed): what `push` still held back, linked
   * as the final would link it (a last `[2]`, the rest of a line after a stray backtick), so nothing
   * the model wrote is lost from the view. '' when everything was given.
   */
  flush(): string {
    const visible = linkedBody(this.#tail, this.#byNumber);
    if (visible.length <= this.#given) return '';
    const out = (this.#given === 0 ? this.#owed : '') + visible.slice(this.#given);
    this.#owed = '';
    this.#given = visible.length;
    return out;
  }
}

interface Settled {
  /** The linked text of the part of `text` that can no longer change. */
  shown: string;
  /** A point in `text` where linking can start afresh (0: none); `restartShown` links what precedes it. */
  restart: number;
  restartShown: string;
}

/** What of `text` is settled, linked; see the file comment for what is held back and why. */
function settle(text: string, byNumber: ReadonlyMap<number, Source>): Settled {
  const spans = [...codeSpans(text)];
  const open = openBacktick(text, spans);
  let shown = '';
  let pos = 0;
  let restart = 0;
  let restartShown = '';
  for (const match of spans) {
    const start = match.index ?? 0;
    // From the open backtick on, the text may still be one code span (see openBacktick).
    if (start >= open) break;
    const end = start + match[0].length;
    // Prose before a code span is settled to its end: the span's opening is already there.
    shown += linkMarkers(text.slice(pos, start), byNumber) + match[0];
    pos = end;
    // A block that ends where the text does may still be open; one that ends before it is closed.
    if (end < text.length) {
      restart = end;
      restartShown = shown;
    }
  }
  const prose = text.slice(pos, open);
  // Before an open backtick the prose is settled to its end (a backtick follows); otherwise up to
  // its held tail. From the backtick on, the line is shown as written up to its first possible marker.
  const sure = open < text.length ? prose : prose.slice(0, heldFrom(prose));
  const unsure = open < text.length ? text.slice(open, Math.min(markerFrom(text, open), heldFrom(text))) : '';
  // A line break in settled prose is a restart point unless a marker (`[1,\n2]`) spans it.
  const cut = sure.lastIndexOf('\n') + 1;
  if (cut > 0 && !endsInMarker(sure.slice(0, cut))) {
    restart = pos + cut;
    restartShown = shown + linkMarkers(sure.slice(0, cut), byNumber);
    shown = restartShown + linkMarkers(sure.slice(cut), byNumber);
  } else {
    shown += linkMarkers(sure, byNumber);
  }
  return { shown: shown + unsure, restart, restartShown };
}

/**
 * Where `text` may still turn into a code span: its last backtick, when no line break follows it
 * and it is not inside code (with the backticks right before it: two more would open a block), or
 * `text.length`. Everything before it scans the same whatever comes next; from it on, a closing
 * backtick later on the line would make one code span of it all (a `~~~` block in it included).
 */
function openBacktick(text: string, spans: RegExpMatchArray[]): number {
  const last = text.lastIndexOf('`');
  if (last === -1 || text.includes('\n', last)) return text.length;
  let codeEnd = 0;
  for (const match of spans) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    if (start <= last && last < end) return text.length;
    if (end <= last) codeEnd = end;
  }
  let from = last;
  while (from > codeEnd && text[from - 1] === '`') from--;
  return from;
}

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);
/** What may stand between a marker's `[` and its `]`: numbers, commas, spaces. */
const isMarkerInside = (c: string | undefined) => c !== undefined && /[\d\s,，]/.test(c);

/**
 * Where the part of `text` that could still change at its end begins: trailing whitespace, or a
 * marker still arriving (or complete but not yet followed by anything) with the whitespace before it.
 */
function heldFrom(text: string): number {
  let i = text.length;
  while (isSpace(text[i - 1])) i--;
  let j = i;
  if (j === text.length && text[j - 1] === ']') j--;
  while (isMarkerInside(text[j - 1])) j--;
  if (text[j - 1] !== '[') return i;
  j--;
  while (isSpace(text[j - 1])) j--;
  return j;
}

/** `text` ends inside a marker: a `[` followed by nothing but numbers, commas and spaces. */
function endsInMarker(text: string): boolean {
  let j = text.length;
  while (isMarkerInside(text[j - 1])) j--;
  return text[j - 1] === '[';
}

/**
 * The first possible marker at or after `from`, with the spaces before it (`text.length`: none).
 * `from` is a backtick, so a run of spaces after it starts after it; a match starts only where such
 * a run does (tried from each of its spaces, a long run cost time quadratic in its length).
 */
const POSSIBLE_MARKER_RE = /(?<![ \t])[ \t]*\[[\d\s,，]*(?:\]|$)/g;
function markerFrom(text: string, from: number): number {
  POSSIBLE_MARKER_RE.lastIndex = from;
  const match = POSSIBLE_MARKER_RE.exec(text);
  return match ? match.index : text.length;
}
