/**
 * What of a long document reaches the model. A page that fits the budget comes whole. A longer one is
 * cut into parts (consecutive blocks that fit the budget) the agent can read one by one with `part`,
 * and by default it gets the passages most relevant to its focus (the user's question unless it names
 * one), ranked with BM25 (MiniSearch), in document order, with a visible
 * `[… N paragraphs skipped …]` marker wherever blocks were left out. The opening blocks always come:
 * that is where an article says what it is about.
 */
import MiniSearch from 'minisearch';

export interface PassageOptions {
  /** What the agent is looking for; without one, a long document is read from its start. */
  focus?: string;
  /** Characters the model receives at most (markers and headings included). */
  maxChars: number;
  /** 1-based part to read in order, instead of the passages that match the focus. */
  part?: number;
}

export interface PassageSelection {
  text: string;
  /** Parts the whole document has at this budget (1 when it fits). */
  parts: number;
  /** The part returned, when one was asked for or the document fits in one. */
  part?: number;
  /** Blocks left out of what the model receives. */
  skipped: number;
  /** How the text was chosen. */
  mode: 'whole' | 'part' | 'focus';
}

/** Share of the budget the opening blocks may take before the ranked passages. */
const LEAD_SHARE = 0.2;
/** A block longer than this is split at sentence ends, so one block cannot eat the budget. */
const MAX_BLOCK_SHARE = 0.35;
const SEPARATOR = '\n\n';

export function skipMarker(count: number): string {
  return `[… ${count} paragraph${count === 1 ? '' : 's'} skipped …]`;
}

export function selectPassages(input: string[], options: PassageOptions): PassageSelection {
  const maxChars = Math.max(200, Math.floor(options.maxChars));
  const blocks = splitLongBlocks(
    input.filter((b) => b.trim() !== ''),
    Math.floor(maxChars * MAX_BLOCK_SHARE),
  );
  const whole = blocks.join(SEPARATOR);
  if (whole.length <= maxChars) return { text: whole, parts: 1, part: 1, skipped: 0, mode: 'whole' };
  const parts = partition(blocks, maxChars);
  if (options.part !== undefined) return readPart(blocks, parts, Math.floor(options.part));
  const focus = options.focus?.trim();
  const ranked = focus ? rank(blocks, focus) : [];
  // Nothing to rank by: the first part, in order.
  if (ranked.length === 0) return readPart(blocks, parts, 1);
  return { ...chooseByRank(blocks, ranked, maxChars), parts: parts.length, mode: 'focus' };
}

/** Part `part` (1-based, clamped to the parts there are) in order, with markers for what lies around it. */
function readPart(blocks: string[], parts: Array<[number, number]>, part: number): PassageSelection {
  const index = Math.min(Math.max(1, part), parts.length) - 1;
  const [from, to] = parts[index] as [number, number];
  const text = [
    ...(from > 0 ? [skipMarker(from)] : []),
    blocks.slice(from, to).join(SEPARATOR),
    ...(to < blocks.length ? [skipMarker(blocks.length - to)] : []),
  ].join(SEPARATOR);
  return { text, parts: parts.length, part: index + 1, skipped: blocks.length - (to - from), mode: 'part' };
}

/** Opening blocks, then the best-ranked ones while they fit, rendered in document order. */
function chooseByRank(
  blocks: string[],
  ranked: number[],
  maxChars: number,
): { text: string; skipped: number } {
  const chosen = new Set<number>();
  let used = 0;
  // A marker costs about 30 characters wherever a run of blocks is left out.
  const cost = (i: number) => (blocks[i] as string).length + SEPARATOR.length + 32;
  for (let i = 0; i < blocks.length && used + cost(i) <= maxChars * LEAD_SHARE; i++) {
    chosen.add(i);
    used += cost(i);
  }
  for (const i of ranked) {
    if (chosen.has(i)) continue;
    if (used + cost(i) > maxChars) continue;
    chosen.add(i);
    used += cost(i);
    // The heading a passage sits under says what it is about.
    const heading = headingBefore(blocks, i);
    if (heading !== undefined && !chosen.has(heading) && used + cost(heading) <= maxChars) {
      chosen.add(heading);
      used += cost(heading);
    }
  }
  const out: string[] = [];
  let skippedRun = 0;
  let skipped = 0;
  for (let i = 0; i < blocks.length; i++) {
    if (chosen.has(i)) {
      if (skippedRun > 0) out.push(skipMarker(skippedRun));
      skippedRun = 0;
      out.push(blocks[i] as string);
    } else {
      skippedRun++;
      skipped++;
    }
  }
  if (skippedRun > 0) out.push(skipMarker(skippedRun));
  return { text: out.join(SEPARATOR), skipped };
}

function headingBefore(blocks: string[], index: number): number | undefined {
  for (let i = index - 1; i >= 0 && index - i <= 30; i--) if (/^#{1,6} /.test(blocks[i] as string)) return i;
  return undefined;
}

/** Block indexes by BM25 relevance to `focus`, best first; only blocks that match at all. */
function rank(blocks: string[], focus: string): number[] {
  const index = new MiniSearch<{ id: number; text: string }>({
    fields: ['text'],
    tokenize,
    processTerm,
    searchOptions: { tokenize, processTerm, combineWith: 'OR', prefix: (term) => term.length > 4 },
  });
  index.addAll(blocks.map((text, id) => ({ id, text })));
  return index.search(focus).map((hit) => hit.id as number);
}

/** `[start, end)` block ranges of consecutive blocks that fit `maxChars` each. */
function partition(blocks: string[], maxChars: number): Array<[number, number]> {
  const parts: Array<[number, number]> = [];
  let start = 0;
  let size = 0;
  for (let i = 0; i < blocks.length; i++) {
    const length = (blocks[i] as string).length + SEPARATOR.length;
    if (i > start && size + length > maxChars - 64) {
      parts.push([start, i]);
      start = i;
      size = 0;
    }
    size += length;
  }
  parts.push([start, blocks.length]);
  return parts;
}

/** Splits blocks longer than `max` at sentence or line ends (a PDF page, a wall of text). */
function splitLongBlocks(blocks: string[], max: number): string[] {
  const out: string[] = [];
  for (const block of blocks) {
    if (block.length <= max || block.startsWith('```') || block.startsWith('|')) {
      out.push(block.length <= max * 2.5 ? block : block.slice(0, Math.floor(max * 2.5)));
      continue;
    }
    let rest = block;
    while (rest.length > max) {
      const window = rest.slice(0, max);
      const cut = Math.max(
        window.lastIndexOf('. '),
        window.lastIndexOf('。'),
        window.lastIndexOf('\n'),
        window.lastIndexOf('! '),
        window.lastIndexOf('? '),
      );
      const at = cut > max / 3 ? cut + 1 : window.lastIndexOf(' ') > max / 3 ? window.lastIndexOf(' ') : max;
      out.push(rest.slice(0, at).trim());
      rest = rest.slice(at).trim();
    }
    if (rest) out.push(rest);
  }
  return out;
}

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/u;
const WORD = /[\p{L}\p{N}]+/gu;

/** Words; runs of CJK characters (no spaces to split on) become character pairs. */
function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    if (!CJK.test(word)) {
      tokens.push(word);
      continue;
    }
    for (let i = 0; i < word.length; i++) {
      const pair = word.slice(i, i + 2);
      if (pair.length === 2 || word.length === 1) tokens.push(pair);
    }
  }
  return tokens;
}

const STOP_WORDS = new Set(
  'a an and are as at be but by for from has have he her his how i in is it its of on or our she that the their them they this to was were what when where which who why will with you your'.split(
    ' ',
  ),
);

function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return STOP_WORDS.has(lower) ? null : lower;
}
