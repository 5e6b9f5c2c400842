/**
 * Structure-only judgements on the page's DOM that help choose and trim the content, in any language:
 *
 * - the densest block: the element whose paragraphs hold the most text that is not link text (the
 *   classic text-density reading of Boilerpipe and trafilatura), a candidate beside Readability's
 *   pick for pages where Readability passes over the body (a post in a container it takes for a
 *   comments area returns the sidebar's archive instead);
 * - a comments area that holds only a notice ("Comments are closed", "Die Kommentarfunktion wurde
 *   geschlossen"): told by its container's name (the stem sites use for comments in their own
 *   language), its few words, no link and no form, and its place after the text;
 * - the lead (standfirst) in the article's own header, beside its title: Readability reads the body
 *   beside that header and leaves the lead out, and the header is furniture to the page reading.
 *
 * Each is one walk over the elements (or a bounded number of short walks), linear in the page.
 */
import type { DomElement } from './dom.js';
import { type DomNode, ELEMENT, TEXT } from './dom-node.js';
import {
  allUnder,
  anyElement,
  closestFrom,
  firstUnder,
  isTag,
  outermostUnder,
  textLength,
  textsUnder,
} from './dom-walk.js';

/** Elements that start a block of their own: a "paragraph" holds none of them. */
const BLOCK_TAGS =
  /^(ADDRESS|ARTICLE|ASIDE|BLOCKQUOTE|DETAILS|DIALOG|DD|DIV|DL|DT|FIELDSET|FIGCAPTION|FIGURE|FOOTER|FORM|H[1-6]|HEADER|HGROUP|HR|LI|MAIN|NAV|OL|P|PRE|SECTION|TABLE|TBODY|THEAD|TFOOT|TR|TD|TH|UL)$/;
/** Elements whose leaf text can be a paragraph of prose. */
const PARAGRAPH_TAGS = /^(P|DIV|SECTION|ARTICLE|TD|DD|BLOCKQUOTE)$/;
/** A figure's caption describes its image or video: it is never the page's text on its own. */
const CAPTION_TAGS = /^(FIGURE|FIGCAPTION)$/i;
/** Below this much text that is not a link a leaf is a label, a teaser line or a button, not prose. */
const MIN_PARAGRAPH_CHARS = 50;

/**
 * Comments in the names sites give their containers, in the languages that write the word with this
 * stem: comment(s), commentaire, commento, comentario, comentário, Kommentar(e), komentar, komentarz,
 * kommentti, commentaar; and Disqus.
 */
const COMMENTS_NAME = /[ck]omm?ent|disqus/i;
/** "Commentary", "Kommentator": a column or a commentator, not the comments under a text. */
const NOT_COMMENTS_NAME = /[ck]omm?entar(y|ies|i?at)/i;
/** A notice is a sentence or two: more is a comment or text. */
const MAX_NOTICE_CHARS = 200;
/** Comments areas looked at, at most: bounded work on a page of many comment-named elements. */
const MAX_COMMENT_AREAS = 20;

export interface DenseBlock {
  element: DomElement;
  /** Characters of text outside links in its paragraphs (and half its children's). */
  score: number;
  /** The first words of each of its own paragraphs, to look for in another reading. */
  paragraphs: string[];
}

/**
 * The element whose paragraphs hold the most text outside links: each leaf paragraph (an element
 * with text and no block inside it) of at least MIN_PARAGRAPH_CHARS such characters scores its
 * parent fully and its grandparent by half, so a body split into sections is read whole. Paragraphs
 * inside furniture named as such (`skip` says which) count for nothing.
 */
export function densestBlock(
  root: DomElement,
  skip: (element: DomElement) => boolean,
): DenseBlock | undefined {
  const scores = new Map<DomElement, number>();
  const texts = new Map<DomElement, string[]>();
  const skipped = new Set<DomElement>();
  for (const element of allUnder(root, anyElement)) {
    const parent = element.parentNode;
    if (skipped.has(parent as DomElement) || skip(element) || CAPTION_TAGS.test(element.tagName)) {
      skipped.add(element);
      continue;
    }
    if (!PARAGRAPH_TAGS.test(element.tagName.toUpperCase()) || !isLeaf(element)) continue;
    const { text, chars: own } = proseOf(element);
    if (own < MIN_PARAGRAPH_CHARS || !parent) continue;
    scores.set(parent, (scores.get(parent) ?? 0) + own);
    const list = texts.get(parent) ?? [];
    list.push(text);
    texts.set(parent, list);
    const grand = parent.parentNode;
    if (grand) scores.set(grand, (scores.get(grand) ?? 0) + own / 2);
  }
  let best: DomElement | undefined;
  let bestScore = 0;
  for (const [element, score] of scores) {
    if (score > bestScore) [best, bestScore] = [element, score];
  }
  if (!best) return undefined;
  const paragraphs = texts.get(best) ?? [];
  // A grandparent won through its children: their paragraphs are its own.
  if (paragraphs.length === 0) {
    for (const [parent, list] of texts) if (parent.parentNode === best) paragraphs.push(...list);
  }
  return { element: best, score: bestScore, paragraphs };
}

/** A lead is a sentence or more: shorter text in a header is a date, a byline, a kicker. */
const MIN_LEAD_CHARS = 60;
const MAX_LEAD_CHARS = 1_500;
/** Headers looked at and leads taken, at most. */
const MAX_LEAD_HEADERS = 5;
const MAX_LEADS = 3;
/** Paragraphs and divisions looked at in one header, at most: bounded work on a hostile header. */
const MAX_LEAD_ELEMENTS = 300;

/**
 * The lead paragraphs of the article's own header: a `<header>` that holds the page's `<h1>` or sits
 * in the `<article>` that does, and in it each leaf paragraph (no block inside) of at least
 * MIN_LEAD_CHARS characters, few of them link text, outside forms, navigation and buttons. Read
 * before the page's furniture goes (a header outside `<main>` goes with it).
 */
export function leadParagraphs(root: DomElement): string[] {
  const leads: string[] = [];
  let headers = 0;
  // Walks with tag tests, not selectors: linkedom compiles a selector on every call.
  for (const header of allUnder(root, isHeader)) {
    // The article's own header: it holds the title, or its article does (a teaser's header in a
    // list of articles holds an h2 and its card no h1).
    const article = closestFrom(header.parentNode, isArticle);
    if (!firstUnder(header, isH1) && !(article && firstUnder(article, isH1))) continue;
    if (++headers > MAX_LEAD_HEADERS) break;
    let looked = 0;
    for (const element of allUnder(header, isLeadBlock)) {
      if (++looked > MAX_LEAD_ELEMENTS) break;
      if (!isLeaf(element) || closestFrom(element, outsideLead)) continue;
      const { text, chars } = proseOf(element);
      if (text.length < MIN_LEAD_CHARS || text.length > MAX_LEAD_CHARS) continue;
      if (text.length - chars > text.length * 0.2) continue;
      if (!leads.includes(text)) leads.push(text);
      if (leads.length >= MAX_LEADS) return leads;
    }
  }
  return leads;
}

const isHeader = isTag('HEADER');
const isArticle = isTag('ARTICLE');
const isH1 = isTag('H1');
const isLeadBlock = isTag('P', 'DIV');
const isParagraph = isTag('P');

/** nav, form, button, [role="navigation"], [hidden]: a lead is never inside one. */
function outsideLead(element: DomElement): boolean {
  return (
    /^(NAV|FORM|BUTTON)$/i.test(element.tagName) ||
    element.getAttribute('role') === 'navigation' ||
    element.getAttribute('hidden') !== null
  );
}

/** An element with text of its own and no block-level element inside it. */
function isLeaf(element: DomElement): boolean {
  const children = element.childNodes;
  let text = false;
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (!child) continue;
    if (child.nodeType === ELEMENT && BLOCK_TAGS.test(child.nodeName.toUpperCase())) return false;
    if (child.nodeType === TEXT || child.nodeType === ELEMENT) text = true;
  }
  return text;
}

/** Whether a class, id or label names a comments area, in any language that writes it with the stem. */
export function namesComments(element: DomElement): boolean {
  const names = `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''} ${element.getAttribute('aria-label') ?? ''}`;
  return names.length < 300 && COMMENTS_NAME.test(names) && !NOT_COMMENTS_NAME.test(names);
}

/**
 * Removes a comments area that holds only a notice: the outermost element named for comments whose
 * text is a sentence or two (MAX_NOTICE_CHARS) with no link and no form control, after which the
 * text under `root` ends. A container named for comments that holds the text itself (an opinion
 * column, "Kommentar" in German) is the text, and stays.
 */
export function dropCommentNotices(root: DomElement): void {
  const total = textLength(root);
  for (const area of commentAreas(root)) {
    const text = (area.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (
      text.length > 0 &&
      text.length <= MAX_NOTICE_CHARS &&
      text.length * 4 <= total &&
      area.querySelector('a, input, textarea, select, button, h1, h2, h3, h4, h5, h6') === null &&
      isLast(area, root)
    )
      area.remove();
  }
}

/** The outermost elements under `root` named for comments (namesComments), in document order. */
export function commentAreas(root: DomElement): DomElement[] {
  return outermostUnder(root, namesComments, MAX_COMMENT_AREAS);
}

/** No text follows the element under `root`. */
function isLast(element: DomElement, root: DomElement): boolean {
  for (let node: DomElement | null = element; node && node !== root; node = node.parentNode) {
    const siblings: ArrayLike<DomNode> | undefined = node.parentNode?.childNodes;
    if (!siblings) return true;
    let after = false;
    for (let i = 0; i < siblings.length; i++) {
      const sibling: DomNode | undefined = siblings[i];
      if (sibling === node) after = true;
      else if (after && (sibling?.textContent ?? '').trim() !== '') return false;
    }
  }
  return true;
}

/** A paragraph of a body's part: a sentence or two at least. */
const MIN_PART_PARAGRAPH_CHARS = 80;
/** Paragraphs looked at and parts a body may be split into, at most: bounded work. */
const MAX_PART_PARAGRAPHS = 2_000;
const MAX_PARTS = 30;

/** One container of prose among others of the same class (`<div class="story-text">` three times). */
export interface BodyPart {
  /** The first words of its first paragraph, to look for in another reading. */
  lead: string;
  /** Characters of prose in its own paragraphs. */
  chars: number;
}

/**
 * Containers that share one class attribute and each hold paragraphs of prose: a body the page
 * splits into parts, with ad slots or embeds between them in other rows of its layout (Politico's
 * `story-text` divisions). Readability keeps one container and its siblings, so parts that sit in
 * other branches of the layout are lost to it. Keyed by the class attribute, in document order.
 */
export function bodyParts(root: DomElement): Map<string, BodyPart[]> {
  const byContainer = new Map<DomElement, BodyPart>();
  const paragraphs = allUnder(root, isParagraph);
  for (let i = 0; i < Math.min(paragraphs.length, MAX_PART_PARAGRAPHS); i++) {
    const p = paragraphs[i] as DomElement;
    const container = p.parentNode as DomElement | null;
    if (!container || container.nodeType !== ELEMENT || !container.getAttribute('class')) continue;
    const prose = proseOf(p);
    if (prose.chars < MIN_PART_PARAGRAPH_CHARS) continue;
    const part = byContainer.get(container);
    if (part) part.chars += prose.chars;
    else byContainer.set(container, { lead: prose.text, chars: prose.chars });
  }
  const groups = new Map<string, BodyPart[]>();
  for (const [container, part] of byContainer) {
    const name = container.getAttribute('class') as string;
    const group = groups.get(name) ?? [];
    group.push(part);
    groups.set(name, group);
  }
  for (const [name, group] of groups) if (group.length < 2 || group.length > MAX_PARTS) groups.delete(name);
  return groups;
}

/** A container with a paragraph of prose of its own (a child `<p>`), as bodyParts counts one. */
export function isBodyPart(element: DomElement): boolean {
  const children = element.childNodes;
  for (let i = 0; i < children.length; i++) {
    const child = children[i] as DomElement;
    if (child.nodeName.toUpperCase() === 'P' && proseOf(child).chars >= MIN_PART_PARAGRAPH_CHARS) return true;
  }
  return false;
}

/** An element's text, spaces collapsed, and how many of its characters are outside links (the densest block's, a lead's, a body part's paragraphs). */
function proseOf(element: DomElement): { text: string; chars: number } {
  const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim();
  let linked = 0;
  for (const link of allUnder(element, isTag('A'))) linked += (link.textContent ?? '').trim().length;
  return { text, chars: text.length - linked };
}

/** A description shorter than this is a tagline, not a lead. */
const MIN_STANDFIRST_CHARS = 80;
/** Elements whose text a reader never sees. */
const UNSEEN_TAGS = /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE|HEAD|TITLE)$/;

/**
 * The page's description of itself (og:description) where it is also its standfirst: a sentence or
 * more, whole (a summary cut with "…" is a teaser of the text, not a part of it), and shown on the
 * page as text, not only in its metadata. News sites print it above the body, in a container
 * Readability does not take.
 */
export function shownStandfirst(description: string | undefined, root: DomElement): string | undefined {
  if (!description || description.length < MIN_STANDFIRST_CHARS || /(\.\.\.|…)$/.test(description))
    return undefined;
  const wanted = description.slice(0, 60);
  const text = textsUnder(root, (element) => UNSEEN_TAGS.test(element.nodeName.toUpperCase())).join('');
  // Spacing aside, the page's text holds each word of the description as written: where it lacks
  // the longest, the whole text need not be respaced to know (the usual case).
  const longest = wanted.split(/\s+/).reduce((a, b) => (b.length > a.length ? b : a), '');
  if (!text.includes(longest)) return undefined;
  return text.replace(/\s+/g, ' ').includes(wanted) ? description : undefined;
}
