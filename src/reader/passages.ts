/**
 * What of a long document reaches the model. A page that fits the budget comes whole. A longer one is
 * cut into parts (consecutive blocks that fit the budget) the agent can read one by one with `part`,
 * and by default it gets the passages most relevant to its focus (the user's question unless it names
 * one), ranked with BM25 (MiniSearch), in document order, with a visible
 * `[… N paragraphs skipped …]` marker wherever blocks were left out. The opening blocks always come:
 * that is where an article says what it is about.
 *
 * Links cost the model their targets: `[text](https://…)` inside every sentence was 8 % of what it
 * read. A link keeps its text where it stands, as plain words (any marker inside a sentence splits it
 * for whatever looks for its words as written), and its target goes to a numbered list at the end
 * with the link's text as its title (`[L3]: https://… "text"`), only for the links in the text it
 * gets (labelled L1, L2 …, never a bare number, which the answer would take for a source to cite);
 * links that lead nowhere new or are navigation (this page's own anchors and site, a URL written as
 * its own text, a site's front page, a glyph) keep only their text. Ranking, budgets and cuts work on that lean text, so a URL's words never make a block
 * look relevant and a long block is never cut inside a link, a bold run or a code span.
 */
import MiniSearch from 'minisearch';

export interface PassageOptions {
  /** What the agent is looking for; without one, a long document is read from its start. */
  focus?: string;
  /** Characters the model receives at most (markers and headings included). */
  maxChars: number;
  /** 1-based part to read in order, instead of the passages that match the focus. */
  part?: number;
  /**
   * The size of the parts `part` reads and `parts` counts (fetch_url's page budget); maxChars when
   * not given. Larger than maxChars for a short read (a result page read within a search round): its
   * text fits maxChars, but the parts it names are the ones a later call with `part` returns.
   */
  partChars?: number;
  /** The document's own address: links to it (its anchors) keep only their text. */
  pageUrl?: string;
}

export interface PassageSelection {
  text: string;
  /** Parts the whole document has at `partChars` (1 when it fits). */
  parts: number;
  /** The part returned, when one was asked for or the document fits in one. */
  part?: number;
  /** Blocks left out of what the model receives. */
  skipped: number;
  /**
   * How the text was chosen: all of it, one part, the passages that match the focus, or (a short
   * read with nothing to rank by) the document's start, less than its first part.
   */
  mode: 'whole' | 'part' | 'focus' | 'start';
  /** Link targets listed at the end of `text` (`[n]: url`), in their numbers' order. */
  links?: string[];
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
  const { partChars, ...within } = options;
  if (partChars === undefined || partChars <= within.maxChars) return selectWithin(input, within);
  // A part is the same text whoever asks for it.
  if (within.part !== undefined) return selectWithin(input, { ...within, maxChars: partChars });
  const short = selectWithin(input, within);
  if (short.mode === 'whole') return short;
  // Counted as a call with `part` partitions the document, so the header can say how to read on.
  const { parts } = selectWithin(input, {
    maxChars: partChars,
    part: 1,
    ...(within.pageUrl ? { pageUrl: within.pageUrl } : {}),
  });
  const { part: _shorterPart, ...shortText } = short;
  return { ...shortText, parts, mode: short.mode === 'part' ? 'start' : short.mode };
}

/** The text within `maxChars`, its parts counted at that size. */
function selectWithin(input: string[], options: Omit<PassageOptions, 'partChars'>): PassageSelection {
  const maxChars = Math.max(200, Math.floor(options.maxChars));
  const targets: string[] = [];
  const lean = input.filter((b) => b.trim() !== '').map((b) => leanLinks(b, targets, options.pageUrl));
  const wholeBlocks = splitLongBlocks(lean, Math.floor(maxChars * MAX_BLOCK_SHARE));
  const whole = wholeBlocks.join(SEPARATOR);
  const everyTarget = listCost(targets);
  if (whole.length + everyTarget <= maxChars)
    return withLinks({ text: whole, parts: 1, part: 1, skipped: 0, mode: 'whole' }, targets, maxChars);
  // The list of targets gets at most a fifth of the budget; links past it keep only their text.
  const budget = maxChars - Math.min(everyTarget, Math.floor(maxChars * LINK_SHARE));
  const blocks =
    budget === maxChars ? wholeBlocks : splitLongBlocks(lean, Math.floor(budget * MAX_BLOCK_SHARE));
  const parts = partition(blocks, budget);
  if (options.part !== undefined)
    return withLinks(readPart(blocks, parts, Math.floor(options.part)), targets, maxChars);
  const focus = options.focus?.trim();
  const ranked = focus ? rank(blocks, focus) : [];
  // Nothing to rank by: the first part, in order.
  if (ranked.length === 0) return withLinks(readPart(blocks, parts, 1), targets, maxChars);
  return withLinks(
    { ...chooseByRank(blocks, ranked, budget), parts: parts.length, mode: 'focus' },
    targets,
    maxChars,
  );
}

/** Share of the budget the list of link targets may take. */
const LINK_SHARE = 0.1;
/** A link's place in lean text until it is numbered: private-use brackets around its target's index. */
const LINK_REF = /\uE010(\d+)\uE011/g;
/** `[text](url)` as html-to-markdown writes it (brackets in the text escaped, no spaces in the url). */
const MARKDOWN_LINK = /\[((?:[^\]\\]|\\.)*)\]\(([^()\s]*)\)/g;

/** `[text](url)` → `[text]` and a reference to `targets` (its text alone where the link leads nowhere new). */
function leanLinks(block: string, targets: string[], pageUrl: string | undefined): string {
  if (!block.includes('](') || block.startsWith('```') || block.startsWith('~~~')) return block;
  const page = pageUrl ? withoutHash(pageUrl) : undefined;
  const site = pageUrl ? siteOf(pageUrl) : undefined;
  return block.replace(MARKDOWN_LINK, (_m, text: string, url: string) => {
    const plainText = text.replace(/\\([[\]])/g, '$1');
    if (
      !/^https?:\/\//i.test(url) ||
      withoutHash(url) === page ||
      (site !== undefined && siteOf(url) === site) ||
      sameAddress(plainText, url) ||
      isNavigation(plainText, url)
    )
      return text;
    let index = targets.indexOf(url);
    if (index < 0) index = targets.push(url) - 1;
    return `[${text}]\uE010${index}\uE011`;
  });
}

/**
 * Links that lead nowhere a reader would follow from the text: a site's front page ("Home", the
 * logo's link) and glyph-only links (`¶`, `#`, `↑` permalinks), in any language.
 */
function isNavigation(text: string, url: string): boolean {
  if (!/[\p{L}\p{N}]/u.test(text)) return true;
  try {
    const { pathname, search } = new URL(url);
    return pathname === '/' && search === '';
  } catch {
    return true;
  }
}

/**
 * The host a URL is on, `www.` aside. Links within the page's own site are its navigation: on WCXB's
 * pages two in three links in the main text were, mostly a site promoting its other pages, and
 * their targets cost the model more than any other text it got (word F1 of the whole text 0.79 with
 * every target listed, 0.82 with only other sites'). Links to other sites — sources, references,
 * the documents a text cites — are what a reader follows from it.
 */
function siteOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return undefined;
  }
}

function withoutHash(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

/** The link's text is its address (`example.com/a`, `https://example.com/a/`). */
function sameAddress(text: string, url: string): boolean {
  const bare = (u: string) =>
    u
      .replace(/^https?:\/\/(www\.)?/i, '')
      .replace(/\/$/, '')
      .toLowerCase();
  return bare(text) === bare(url);
}

/** Characters of a link's text written as its list entry's title, at most. */
const MAX_TITLE_CHARS = 60;

/** Characters the `[Ln]: url "text"` lines of these targets take (titles at their longest). */
function listCost(targets: string[]): number {
  if (targets.length === 0) return 0;
  let cost = SEPARATOR.length;
  for (const [i, url] of targets.entries()) cost += entryCost(url, i + 1, MAX_TITLE_CHARS);
  return cost;
}

/** `[Ln]: ` + url + ` "title"` + the line break. */
function entryCost(url: string, n: number, titleChars: number): number {
  return url.length + String(n).length + 6 + (titleChars > 0 ? titleChars + 3 : 0);
}

/** A link's text as its entry's title: unescaped, on one line, quotes kept apart, cut at MAX_TITLE_CHARS. */
function entryTitle(linkText: string): string {
  const text = plainLinkText(linkText).replace(/\s+/g, ' ').replace(/"/g, "'").trim();
  return text.length <= MAX_TITLE_CHARS ? text : `${text.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…`;
}

/** A link's text as html-to-markdown escaped it (`\[`, `\]`), as plain words. */
function plainLinkText(linkText: string): string {
  return linkText.replace(/\\([[\]])/g, '$1');
}

/**
 * The chosen text with its links numbered in reading order and their targets listed at the end, as
 * many as fit `maxChars`; a link whose target does not fit (or repeats none) keeps only its text.
 */
function withLinks(selection: PassageSelection, targets: string[], maxChars: number): PassageSelection {
  if (!selection.text.includes('\uE010')) return selection;
  const order: number[] = [];
  for (const match of selection.text.matchAll(LINK_REF)) {
    const index = Number(match[1]);
    if (!order.includes(index)) order.push(index);
  }
  // The text loses its references' brackets and markers; the list fills what the budget leaves.
  const titles = new Map<number, string>();
  for (const match of selection.text.matchAll(LINKED_TEXT)) {
    const index = Number(match[2]);
    if (!titles.has(index)) titles.set(index, entryTitle(match[1] ?? ''));
  }
  const text = selection.text.replace(LINKED_TEXT, (_m, linkText: string) => plainLinkText(linkText));
  let room = maxChars - text.length - SEPARATOR.length;
  const numbers = new Map<number, number>();
  for (const index of order) {
    const url = targets[index] as string;
    const n = numbers.size + 1;
    const cost = entryCost(url, n, titles.get(index)?.length ?? 0);
    if (cost > room) continue;
    numbers.set(index, n);
    room -= cost;
  }
  if (numbers.size === 0) return { ...selection, text };
  const listed = [...numbers.keys()].map((index) => targets[index] as string);
  const entries = [...numbers.keys()].map((index, i) => {
    const title = titles.get(index);
    return `[L${i + 1}]: ${targets[index]}${title ? ` "${title}"` : ''}`;
  });
  return { ...selection, text: `${text}${SEPARATOR}${entries.join('\n')}`, links: listed };
}

/** A link in lean text: its Markdown text and its target's index. */
const LINKED_TEXT = /\[((?:[^\]\\]|\\.)*)\]\uE010(\d+)\uE011/g;

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

/**
 * Splits blocks longer than `max` at sentence or line ends (a PDF page, a wall of text), never inside
 * a link's `[text]`, a `**bold**` run or a `code` span, so each piece is Markdown of its own.
 */
function splitLongBlocks(blocks: string[], max: number): string[] {
  const out: string[] = [];
  for (const block of blocks) {
    if (block.length <= max || block.startsWith('```') || block.startsWith('|')) {
      out.push(block.length <= max * 2.5 ? block : cutAt(block, Math.floor(max * 2.5)));
      continue;
    }
    let rest = block;
    while (rest.length > max) {
      const open = openSpans(rest, max);
      const allowed = (i: number) => i > max / 3 && open[i] === 0;
      let at = -1;
      for (let i = max - 1; i > max / 3 && at < 0; i--) {
        const ch = rest[i];
        const next = rest[i + 1];
        if ((ch === '\n' || ch === '。' || (/[.!?]/.test(ch ?? '') && next === ' ')) && allowed(i + 1))
          at = i + 1;
      }
      for (let i = max - 1; i > max / 3 && at < 0; i--) if (rest[i] === ' ' && allowed(i)) at = i;
      if (at < 0) at = max;
      out.push(rest.slice(0, at).trim());
      rest = rest.slice(at).trim();
    }
    if (rest) out.push(rest);
  }
  return out;
}

/** `text` cut to at most `max` characters, outside any span openSpans sees. */
function cutAt(text: string, max: number): string {
  const open = openSpans(text, max);
  let at = max;
  while (at > max / 2 && open[at] !== 0) at--;
  return text.slice(0, at > max / 2 ? at : max);
}

/**
 * For each position up to `limit`: 0 where a cut leaves whole Markdown, 1 inside a link's text (or
 * its reference), a bold run or a code span.
 */
function openSpans(text: string, limit: number): Uint8Array {
  const open = new Uint8Array(limit + 1);
  let bracket = 0;
  let bold = false;
  let code = false;
  let reference = false;
  for (let i = 0; i <= limit && i < text.length; i++) {
    open[i] = bracket > 0 || bold || code || reference ? 1 : 0;
    const ch = text[i];
    if (ch === '\\') {
      i++;
      if (i <= limit) open[i] = 1;
      continue;
    }
    if (ch === '`') code = !code;
    else if (code) continue;
    else if (ch === '[') bracket++;
    else if (ch === ']' && bracket > 0) bracket--;
    else if (ch === '\uE010') reference = true;
    else if (ch === '\uE011') reference = false;
    else if (ch === '*' && text[i + 1] === '*') {
      bold = !bold;
      i++;
      if (i <= limit) open[i] = 1;
    }
  }
  if (text.length <= limit) open[text.length] = 0;
  return open;
}

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/u;
const WORD = /[\p{L}\p{N}]+/gu;

/** Words; runs of CJK characters (no spaces to split on) become character pairs. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.replace(LINK_REF, ' ').matchAll(WORD)) {
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

export function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return STOP_WORDS.has(lower) ? null : lower;
}
