/**
 * Splits a Markdown answer that is too long for one platform message into parts that each fit and
 * each render on their own: cut at paragraph boundaries, else line boundaries, else after a
 * sentence or a word; never inside a code fence when the block fits in a part of its own (a longer
 * block is closed at the cut and reopened with its language tag in the next part); never inside a
 * link, inline code or URL. Nothing is lost: the parts joined give back the text, apart from the
 * inserted fence lines and whitespace at the joins.
 */
import {
  fenceCloserLine,
  fenceOpenerLine,
  type Fence,
  type LineInfo,
  lineIndexAt,
  type MarkdownScan,
  scanMarkdown,
  stateAt,
} from './markdown-scan.js';

/** Where a continued split starts scanning: a line start and the fence open there. */
export interface SplitContext {
  lineStart: number;
  fence: Fence | null;
}

export interface SplitPart {
  /** What to send: the source slice, plus a reopened/closed fence where the cut is in code. */
  text: string;
  /** Source range of the part in the input (whitespace at the joins excluded). */
  start: number;
  end: number;
}

/**
 * A cut is only taken at a preferred kind of boundary if the part is at least this full; otherwise
 * a paragraph break near the top would leave a stub message, and a later sentence break is better.
 */
const MIN_FILL = 0.5;

/** Below this a part cannot hold a reopened fence, its closer and some content. */
export const MIN_MAX_CHARS = 40;

type Tier = 'para' | 'line' | 'table' | 'sentence' | 'word';
/** Cut kinds outside code blocks, best first. */
const TIERS: Tier[] = ['para', 'line', 'table', 'sentence', 'word'];

const SENTENCE_END = new Set(['.', '!', '?', ':', ';']);
/** CJK punctuation ends a sentence with no space after it. */
const CJK_SENTENCE_END = new Set(['。', '！', '？', '；', '…']);
const CJK_PAUSE = new Set(['，', '、', '：']);

export function splitMessage(markdown: string, maxChars: number): string[] {
  return planSplit(markdown, maxChars).map((part) => part.text);
}

/**
 * The parts of `markdown` from source offset `from` (default 0) on. Fence state is computed from the
 * whole text, so a caller streaming a growing answer can keep the parts it already sent fixed and
 * split only the rest (see live-answer.ts).
 */
export function planSplit(
  markdown: string,
  maxChars: number,
  from = 0,
  context: SplitContext = { lineStart: 0, fence: null },
): SplitPart[] {
  if (!Number.isFinite(maxChars) || maxChars < MIN_MAX_CHARS) {
    throw new RangeError(`maxChars must be at least ${MIN_MAX_CHARS}, got ${maxChars}`);
  }
  if (context.lineStart > from) throw new RangeError('context must start at or before `from`');
  const whole = wholeRest(markdown, maxChars, from, context);
  if (whole !== undefined) return whole;
  const scan = scanMarkdown(markdown, context.lineStart, context.fence);
  const splitter = new Splitter(markdown, maxChars, scan);
  const parts: SplitPart[] = [];
  let s = splitter.skipJoin(from);
  while (s < markdown.length) {
    const e = splitter.chooseEnd(s);
    const part = splitter.part(s, e);
    if (part.end > part.start) parts.push(part);
    s = splitter.skipJoin(Math.max(e, s + 1));
  }
  return parts;
}

/**
 * The common case of a streamed answer: the rest of the text fits in one part and holds no code
 * fence (none open at `from`, no fence marker after it), so no cut and no fence lines are needed:
 * the part is the rest itself, joins trimmed — the result the full scan would give, without
 * scanning lines and link spans every frame. Undefined when the full split is needed.
 */
function wholeRest(
  markdown: string,
  maxChars: number,
  from: number,
  context: SplitContext,
): SplitPart[] | undefined {
  if (context.fence || markdown.length - from > maxChars) return undefined;
  // A fence marker anywhere from the context's line on could open a block (and a closer line).
  if (markdown.includes('```', context.lineStart) || markdown.includes('~~~', context.lineStart))
    return undefined;
  const start = skipJoinAt(markdown, from);
  let end = markdown.length;
  while (end > start && /\s/.test(markdown[end - 1]!)) end--;
  return end > start ? [{ text: markdown.slice(start, end), start, end }] : [];
}

/**
 * The scan state at `pos`, so a streaming caller can continue splitting from there without
 * rescanning the text before it (pass the previous context to scan only the new stretch).
 */
export function splitContextAt(
  markdown: string,
  pos: number,
  previous: SplitContext = { lineStart: 0, fence: null },
): SplitContext {
  return stateAt(markdown, pos, previous.lineStart, previous.fence);
}

class Splitter {
  constructor(
    private readonly text: string,
    private readonly max: number,
    private readonly scan: MarkdownScan,
  ) {}

  skipJoin(pos: number): number {
    return skipJoinAt(this.text, pos);
  }

  /** The fence open at `pos` (a part starting or ending there must reopen / close it). */
  fenceAt(pos: number): Fence | null {
    if (pos >= this.text.length) return this.scan.fenceAtEnd;
    const line = this.scan.lines[lineIndexAt(this.scan.lines, pos)]!;
    return line.fenceBefore;
  }

  trimmedEnd(s: number, e: number): number {
    let end = e;
    while (end > s && /\s/.test(this.text[end - 1]!)) end--;
    return end;
  }

  cost(s: number, e: number, opener: Fence | null): number {
    const closer = this.fenceAt(e);
    const body = this.trimmedEnd(s, e) - s;
    return (
      (opener ? fenceOpenerLine(opener).length + 1 : 0) +
      body +
      (closer ? fenceCloserLine(closer).length + 1 : 0)
    );
  }

  part(s: number, e: number): SplitPart {
    const opener = this.fenceAt(s);
    const end = this.trimmedEnd(s, e);
    const closer = this.fenceAt(e);
    let text = this.text.slice(s, end);
    if (opener) text = `${fenceOpenerLine(opener)}\n${text}`;
    if (closer) text = `${text}\n${fenceCloserLine(closer)}`;
    return { text, start: s, end };
  }

  chooseEnd(s: number): number {
    const { text, max } = this;
    const opener = this.fenceAt(s);
    if (this.cost(s, text.length, opener) <= max) return text.length;

    const limit = Math.min(text.length, s + max);
    const fits = (e: number) => e > s && this.cost(s, e, opener) <= max;
    const best = new Map<Tier, number>();
    let bestFenceLine = -1;
    const offer = (tier: Tier, e: number) => {
      if (fits(e) && e > (best.get(tier) ?? -1)) best.set(tier, e);
    };

    // Line boundaries.
    const { lines } = this.scan;
    for (let i = lineIndexAt(lines, s) + 1; i < lines.length && lines[i]!.start <= limit; i++) {
      const line = lines[i]!;
      const prev = lines[i - 1]!;
      // A cut right after an opener or right before a closer would leave an empty code block.
      if (line.isCloser || prev.isOpener) continue;
      if (line.fenceBefore) {
        if (fits(line.start)) bestFenceLine = line.start;
        continue;
      }
      offer(lineTier(lines, i), line.start);
    }

    // Sentence and word boundaries inside long lines, outside code blocks.
    const { noBreak } = this.scan;
    for (let e = s + 1; e <= limit; e++) {
      const before = text[e - 1]!;
      if (before === '\n' || noBreak[e] || text[e] === '\n') continue;
      let tier: Tier | undefined;
      if (before === ' ' || before === '\t') {
        tier = SENTENCE_END.has(text[e - 2] ?? '') ? 'sentence' : 'word';
      } else if (CJK_SENTENCE_END.has(before)) tier = 'sentence';
      else if (CJK_PAUSE.has(before)) tier = 'word';
      if (tier && !this.fenceAt(e)) offer(tier, e);
    }

    const window = max - (opener ? fenceOpenerLine(opener).length + 1 : 0);
    for (const tier of TIERS) {
      const e = best.get(tier);
      if (e !== undefined && e - s >= MIN_FILL * window) return e;
    }
    // No well-filled cut outside code: a short part still beats cutting a block that would fit.
    for (const tier of TIERS) {
      const e = best.get(tier);
      if (e !== undefined) return e;
    }
    if (bestFenceLine > s) return bestFenceLine;
    return this.hardCut(s, opener);
  }

  /** The farthest cut that fits, moved back out of a link or URL and off a surrogate pair. */
  hardCut(s: number, opener: Fence | null): number {
    const { text, max } = this;
    let e = Math.min(text.length, s + max);
    while (e > s + 1 && this.cost(s, e, opener) > max) e--;
    let safe = e;
    while (safe > s + 1 && this.scan.noBreak[safe]) safe--;
    if (safe > s + 1) e = safe; // else the link alone is longer than a message: cut it anyway
    if (e > s + 1 && isHighSurrogate(text.charCodeAt(e - 1))) e--;
    return e;
  }
}

/** Skips whitespace at a join: blank lines, and spaces when the join is mid-line. Keeps indentation. */
function skipJoinAt(text: string, pos: number): number {
  let p = pos;
  for (;;) {
    let q = p;
    while (q < text.length && (text[q] === ' ' || text[q] === '\t' || text[q] === '\r')) q++;
    if (q >= text.length) return text.length;
    if (text[q] === '\n') {
      p = q + 1;
      continue;
    }
    const atLineStart = p === 0 || text[p - 1] === '\n';
    return atLineStart ? p : q;
  }
}

function lineTier(lines: LineInfo[], i: number): Tier {
  const line = lines[i]!;
  const prev = lines[i - 1]!;
  // A heading belongs with what follows it: never end a part on one.
  let j = i - 1;
  while (j > 0 && lines[j]!.blank) j--;
  if (lines[j]!.heading) return 'word';
  if (prev.blank || line.blank || line.heading || line.isOpener || prev.isCloser) return 'para';
  if (prev.tableRow && line.tableRow) return 'table';
  return 'line';
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
