/**
 * Blocks that are page furniture even inside the article container Readability picked: ad labels,
 * "Skip to content", cookie notices, copyright lines, share prompts, photo credits, "related" link
 * lists and their labels, bylines and timestamps (the reader reports those as metadata), the
 * article's own title again. Judged per Markdown block by the shapes sites use everywhere; a block
 * long enough to be prose is kept.
 */
import { isSpace } from './spaced-length.js';

/** Whole blocks that are only a label. */
const LABEL =
  /^(advert(isement)?s?|sponsored( content)?|ad|skip to (main )?content|share( this( article| story| post| page)?)?( on| via)?|comments?|\d+ comments?|leave a (comment|reply)|topics|tags|related( articles| stories| posts| content| coverage| links)?|read more|more stories|loading|this slideshow requires javascript|print|email|whatsapp|facebook|twitter|linkedin|pinterest|reddit|copy link|continue reading( below)?|story continues below( advertisement)?|scroll to continue|\d+|close|menu|search|caption|you (may|might) also like|don'?t miss|see more|see also|more from .{1,30}|recommended( for you)?|most (read|popular|viewed)|trending( now)?|read next|up next|watch|listen|more on this( story| topic)?|editor'?s picks?|was this (page|article|answer|post) (helpful|useful)\??|(did|do) you find this (page|article) (helpful|useful)\??)$/i;
/** A cookie or consent notice. */
const COOKIE = /\bcookies?\b/i;
const CONSENT = /\b(use|uses|using|accept|consent|agree|opt[- ]out|privacy|experience)\b/i;
/** Copyright and imprint lines. */
const COPYRIGHT = /(©|\(c\) ?\d{4}|\bcopyright\b|all rights reserved)/i;
/** Newsletter and follow prompts. */
const PROMPT =
  /^(sign up|subscribe|follow us|get (our|the) .{0,40}newsletter|join our|download (our|the) app)\b/i;
/** Affiliate disclosures and rating widgets. */
const DISCLOSURE =
  /(affiliate links?|as an amazon associate|sponsored by|paid partnership|(may )?earns? (a )?commission|the free encyclopedia$)/i;
const RATING = /^\d(\.\d)?\s*(from|of) \d[\d,]* (votes|ratings|reviews)\b/i;
/** A date as forums, Q&A sites and comment lists print one beside a name. */
const DATE =
  /\b(\d{4}-\d{2}-\d{2}|\d{1,2}\/\d{1,2}\/\d{2,4}|(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}(st|nd|rd|th)?,? \d{4}|\d{1,2} (jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{4})\b/i;

/** Photo captions and credits. */
const PHOTO_CREDIT =
  /(\((AP|AFP|Reuters|Getty)?\s*Photo\b[^)]*\)|\(Images?: [^)]*\)|\bCredit: |\bPhoto(graph)?: |^Image \d+ of|\b(Getty|Shutterstock|Alamy) Images?\)?$|\bPhoto by )/i;
/** "By Jane Doe", "Published 4:00 am, Nov 20, 2019", "Updated: 18 Nov 2019": reported as metadata. */
const BYLINE = /^([Bb]y|[Vv]on|[Pp]ar|[Pp]or|[Dd]e)\s+\p{Lu}[^.!?]{0,60}$/u;
/** "5 min read", "Nov. 7, 2024 · 5 min read". */
const READ_TIME = /\b\d+\s*(min(ute)?s?|minutes?)\.?\s*(read|de lecture|Lesezeit)\b/i;
const TIMESTAMP = /^[-–•·\s]*(published|updated|posted|last (updated|modified)|modified)\b:?.{0,80}$/i;
const LINK = /\[([^\]]*)\]\([^)]*\)/g;
const TIME_OF_DAY = /\b\d{1,2}:\d{2}\b/;

/** Drops furniture blocks; `title` (the page's) is dropped where it opens the article as a heading. */
export function dropBoilerplateBlocks(blocks: string[], title?: string): string[] {
  const seen = new Set<string>();
  const wantedTitle = title ? normalise(title) : undefined;
  const out: string[] = [];
  /** The heading kept last still has nothing under it, and something under it was dropped. */
  let emptied = false;
  for (const block of blocks) {
    const heading = /^(#{1,6}) /.exec(block)?.[1]?.length;
    if (isBoilerplateBlock(block)) {
      const previous = out.at(-1) ?? '';
      if (/^#{1,6} /.test(previous)) emptied = true;
      // The label of a share bar or a link list ("Teilen:", "Lesen Sie auch") goes with it.
      else if (isLinkList(block, plain(block)) && isLabel(previous)) out.pop();
      continue;
    }
    // A heading whose section held only furniture ("Related posts" over a list of links, in any
    // language) goes with it, when the next heading of its level or above (or the end) shows it ends.
    if (
      emptied &&
      heading !== undefined &&
      heading <= (/^(#{1,6}) /.exec(out.at(-1) ?? '')?.[1]?.length ?? 0)
    )
      out.pop();
    emptied = false;
    // A repeated block (a caption shown twice, a teaser in two slots) says nothing new.
    if (block.length > 40) {
      if (seen.has(block)) continue;
      seen.add(block);
    }
    if (out.length === 0 && wantedTitle && /^#{1,3} /.test(block) && normalise(block) === wantedTitle)
      continue;
    out.push(block);
  }
  if (emptied) out.pop();
  // After the text, lines set wholly in bold are calls to action ("Follow us on …", "Get our app",
  // "More information:"), in any language: dropped, as long as text remains before them.
  let end = out.length;
  while (end > 1 && isBoldLine(out[end - 1] ?? '')) end--;
  if (end < out.length && end > 0 && !isBoldLine(out[end - 1] ?? '')) out.length = end;
  return withoutTrailingLines(out);
}

/** A paragraph of prose: long enough, and not a heading, list, table, code or quote. */
const PROSE_CHARS = 100;
/** Blocks that carry structure (or a label over it): kept wherever they stand. */
const STRUCTURED = /^(- |\* |\d+\. |\||```|~~~|> )/m;
/** A line that ends as a sentence does, in any script. */
const SENTENCE_END = /[.!?…。！？]["'»«“”)\]]?$/;

/**
 * After the text's last paragraph of prose, short lines that are not sentences are furniture: a
 * credit, a label ("Kontakt:", "Quelle: …"), an author's name, a rating prompt, a sharing line — in
 * any language, by shape. Lists, tables, code and quotes stay, and so does a heading with a sentence
 * after it. (On trafilatura's development pages: 31 boilerplate passages gone, 11 text passages lost.)
 */
function withoutTrailingLines(blocks: string[]): string[] {
  let last = -1;
  for (let i = blocks.length - 1; i >= 0 && last < 0; i--) {
    const block = blocks[i] as string;
    if (!block.startsWith('#') && !STRUCTURED.test(block) && plain(block).length >= PROSE_CHARS) last = i;
  }
  if (last < 0 || last === blocks.length - 1) return blocks;
  const tail = blocks.slice(last + 1);
  const kept = tail.map((block) => STRUCTURED.test(block) || SENTENCE_END.test(plain(block).trim()));
  return [
    ...blocks.slice(0, last + 1),
    ...tail.filter((block, i) => kept[i] || (block.startsWith('#') && kept.slice(i + 1).some(Boolean))),
  ];
}

/** One line, wholly bold, short: a label or a call to action, not a paragraph of the text. */
function isBoldLine(block: string): boolean {
  return block.length <= 300 && /^\*\*[^*\n]+\*\*$/.test(block);
}

export function isBoilerplateBlock(block: string): boolean {
  if (block.startsWith('```') || block.startsWith('~~~') || block.startsWith('|')) return false;
  const text = plain(block);
  if (!/[\p{L}\p{N}]/u.test(text)) return true;
  if (/^https?:\/\/\S+$/.test(text)) return true;
  const label = labelOf(text);
  if (label.length <= 60 && LABEL.test(label)) return true;
  if (text.length < 400 && COOKIE.test(text) && CONSENT.test(text)) return true;
  if (text.length < 300 && COPYRIGHT.test(text)) return true;
  if (text.length < 200 && PROMPT.test(text)) return true;
  if (text.length < 400 && PHOTO_CREDIT.test(text)) return true;
  if (text.length < 80 && (BYLINE.test(text) || (TIMESTAMP.test(text) && /\d/.test(text)))) return true;
  if (text.length < 300 && DISCLOSURE.test(text)) return true;
  if (text.length < 60 && RATING.test(text)) return true;
  if (text.length < 80 && isDateLine(text)) return true;
  if (text.length < 80 && READ_TIME.test(text)) return true;
  // A heading that links is a section title (product round-ups), not a teaser.
  return !block.startsWith('#') && (isLinkList(block, text) || isLabelledTeaser(block));
}

/**
 * `text` less a leading run of list marks and spaces and a trailing run of punctuation and spaces
 * (`/^[-•*\s]+|[\s:.!…|]+$/g` replaced by nothing), looking only at the characters it drops.
 */
function labelOf(text: string): string {
  let start = 0;
  while (start < text.length && isMarkOrSpace(text.charCodeAt(start), LEAD_MARKS)) start++;
  let end = text.length;
  while (end > start && isMarkOrSpace(text.charCodeAt(end - 1), TRAIL_MARKS)) end--;
  return text.slice(start, end);
}

const LEAD_MARKS = new Set([...'-•*'].map((c) => c.charCodeAt(0)));
const TRAIL_MARKS = new Set([...':.!…|'].map((c) => c.charCodeAt(0)));
const isMarkOrSpace = (code: number, marks: Set<number>) => marks.has(code) || isSpace(code);

/**
 * "Read also: <a link to another article>" in any language: a short label that ends in a colon, then
 * a link that is the rest of the block (a sentence that links a word or two is far from this).
 */
function isLabelledTeaser(block: string): boolean {
  if (block.includes('\n') || block.length > 300) return false;
  const match = /^([^[\]]{1,40}?):\s*\[((?:[^\]\\]|\\.)+)\]\([^)]*\)[\s.!?»"”]*$/.exec(block);
  return match !== null && (match[1] ?? '').trim().split(/\s+/).length <= 4 && (match[2] ?? '').length >= 15;
}

/** A few words that end no sentence: a label over what follows, not text of its own. */
function isLabel(block: string): boolean {
  const text = plain(block);
  return (
    text.length > 0 &&
    text.length <= 40 &&
    !block.startsWith('#') &&
    !block.includes('\n') &&
    !/[.!?。！？"”)]$/.test(text) &&
    linkTextChars(block) === 0
  );
}

/** "asked Mar 8, 2021 at 14:22", "Marta_K December 2, 2024, 9:10pm 3": a date and a few words. */
function isDateLine(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  // "Deadline to apply: March 1st, 2026": a label over a date says what the date is for. With a time
  // of day it is the page's own timestamp in any language ("opublikowano: 2021-04-29 17:13").
  if (/:\s*$/.test(text.slice(0, match.index)) && !TIME_OF_DAY.test(text)) return false;
  const rest = text.replace(match[0], ' ').replace(/\b(\d{1,2}[:.]\d{2}\s*(am|pm)?|at|on|\d+)\b/gi, ' ');
  return (rest.match(/[\p{L}_]+/gu) ?? []).length <= 3;
}

/**
 * A block that is only links ("related" teasers, a list of other articles): at least 90 % of its
 * text is link text. A sentence with a link in it is far below that.
 */
function isLinkList(block: string, text: string): boolean {
  // Characters other than spaces: the gaps between a list's items are nobody's text.
  let linked = 0;
  for (const match of block.matchAll(LINK)) linked += (match[1] ?? '').replace(/\s+/g, '').length;
  // Most blocks link nothing: their letters need not be counted.
  if (linked === 0) return false;
  const letters = text.replace(/^[-*\d.\s]+/gm, '').replace(/\s+/g, '').length;
  return letters > 0 && linked / letters >= 0.9;
}

/** Characters of link text in a Markdown block (`[text](url)` counts `text`). */
export function linkTextChars(block: string): number {
  let linked = 0;
  for (const match of block.matchAll(LINK)) linked += match[1]?.length ?? 0;
  return linked;
}

/** A Markdown block with each link written as its text alone. */
export function withoutLinkTargets(block: string): string {
  return block.replace(LINK, '$1');
}

function plain(block: string): string {
  return withoutLinkTargets(block)
    .replace(/^#+ |\*\*|^> ?/gm, '')
    .trim();
}

function normalise(text: string): string {
  return plain(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
