/**
 * The article, not the page: main content of an HTML page as Markdown blocks, with its metadata.
 *
 * Mozilla Readability (Firefox's Reader View, maintained by Mozilla) finds the main content on a
 * linkedom DOM (a light, spec-following DOM without a browser's cost; no script ever runs). Where it
 * fails or returns too little, the fallbacks are, in order: the page's own schema.org `articleBody`
 * (JSON-LD), then the page's text minus navigation, header, footer, asides, forms and consent
 * banners — which is also how pages that are not articles (docs, forum threads, product pages,
 * search results) still give their useful text.
 *
 * Synchronous and CPU-bound: callers run it in the reader's worker (reader-pool.ts), never on the
 * main thread's event loop.
 */
import { parseHTML } from 'linkedom';
import { withoutHtmlCdata } from './html-cdata.js';
import type { DomDocument, DomElement } from './dom.js';
import {
  dropBoilerplateBlocks,
  isBoilerplateBlock,
  linkTextChars,
  withoutLinkTargets,
} from './boilerplate-blocks.js';
import {
  type BodyPart,
  bodyParts,
  commentAreas,
  isBodyPart,
  type DenseBlock,
  densestBlock,
  dropCommentNotices,
  leadParagraphs,
  namesComments,
  shownStandfirst,
} from './content-candidates.js';
import { type DomNode, HIDING_STYLE, isHidden } from './dom-node.js';
import {
  allUnder,
  anyElement,
  closestFrom,
  deeperThan,
  firstUnder,
  isTag,
  textLength as domTextLength,
  walkElements,
} from './dom-walk.js';
import { FastReadability } from './fast-readability.js';
import { domToMarkdownBlocks } from './html-to-markdown.js';
import { type PageMetadata, readMetadata } from './page-metadata.js';
import { shownArea } from './shown-structured.js';
import { type StructuredContent, structuredContent } from './structured-data.js';
import { type ChainNode, spacedTextLength } from './spaced-length.js';

export interface ExtractedArticle
  extends Omit<PageMetadata, 'articleBody' | 'baseUrl' | 'declaresArticle' | 'description'> {
  /** Markdown blocks in document order (paragraphs, headings, lists, tables, code, quotes). */
  blocks: string[];
  /**
   * Which reading won: Readability's article, the page's JSON-LD body, the cleaned page (or its main
   * area), or the densest block of prose; `structured` when the page's structured data (a recipe, an
   * FAQ …) was added to it; `shown` when the part of the page that shows that data was read instead.
   */
  method: 'article' | 'json-ld' | 'microdata' | 'parts' | 'page' | 'dense' | 'structured' | 'shown';
}

/** Below this many characters Readability's pick is a fragment, not an article. */
const MIN_ARTICLE_CHARS = 250;
/** A reading with more of its text in links than this is a menu or a list of teasers, not content. */
const MAX_LINK_SHARE = 0.35;
/** Elements that are never the content of a page, whatever page it is. */
const BOILERPLATE_TAGS = new Set(
  'STYLE NOSCRIPT TEMPLATE SVG IFRAME CANVAS VIDEO AUDIO LINK META INPUT TEXTAREA NAV ASIDE FORM DIALOG BUTTON SELECT'.split(
    ' ',
  ),
);
const BOILERPLATE_ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'search',
  'dialog',
  'alertdialog',
]);
/**
 * Consent banners, share bars, newsletter boxes: by the names sites give them. A caption (an image's
 * credit or description, named so) is not the text either: the model gets no image, and alone a
 * caption is a credit ("Foto: dpa") or a line repeated from the text.
 */
const BOILERPLATE_NAMES =
  /(^|[\s_-])(cookie|consent|gdpr|onetrust|newsletter|subscribe|signup|share|sharing|social-(share|links?|icons?|buttons?|follow|bar|media-links)|breadcrumbs?|skip-link|sr-only|visually-hidden|advert|ads?|sponsor|promo|related|recommend(ed|ations)?|most-(read|popular)|about-(the-)?author|author-(card|profile)|affiliate|disclosure|trending|paywall|popup|modal|caption|toolbar|menu|sidebar|site-(header|footer)|comments?|comment-(list|section|form)|reactions|disqus|author-(bio|box|info|description|details|about)|post-author|entry-meta|post-?meta(data)?|date|teasers|tags?|byline|dateline)($|[\s_-])/i;

/** The page's elements nest deeper than the caller allowed (`maxDepth`): nothing walked it. */
export class TooDeepError extends Error {
  constructor(readonly maxDepth: number) {
    super(`elements nest more than ${maxDepth} deep`);
    this.name = 'TooDeepError';
  }
}

export interface ExtractOptions {
  /**
   * Elements may nest at most this deep, measured on the tree before anything walks it; deeper
   * throws TooDeepError (for a caller whose pre-check left the depth unknown).
   */
  maxDepth?: number;
}

export function extractArticle(
  html: string,
  pageUrl: string,
  options: ExtractOptions = {},
): ExtractedArticle {
  const document = parse(html);
  if (options.maxDepth !== undefined && deeperThan(document.documentElement as DomElement, options.maxDepth))
    throw new TooDeepError(options.maxDepth);
  // One walk over the elements for the metadata and the structured data (both read them all).
  // The document's chain holds every element, those a page writes outside its <html> too.
  const elements = allUnder(document as unknown as DomElement, anyElement);
  const metadata = readMetadata(document, pageUrl, elements);
  // Read before the furniture goes: a recipe card may sit in what looks like a sidebar.
  const structured = structuredContent(document, elements);
  // Read before the furniture goes too: a site may set the article's header outside its <main>.
  const root = document.body ?? (document.documentElement as DomElement);
  const standfirst = shownStandfirst(metadata.description, root);
  const leads = leadParagraphs(root);
  // The page's own summary, where it shows it, is the first lead (a header's lead that says the same goes).
  const allLeads = standfirst
    ? [standfirst, ...leads.filter((lead) => !comparable(standfirst).includes(comparable(lead).slice(0, 80)))]
    : leads;
  const chosen = withLeads(chooseReading(document, html, metadata), allLeads);
  if (!structured || holdsStructured(chosen, structured)) return chosen;
  // The page shows its recipe card (or its answers) where the chosen text left it out: that part of
  // the page, as written, before the structured data's own words.
  const shown = shownReading(html, metadata.baseUrl, chosen, structured);
  return shown ? withLeads(shown, allLeads) : withStructured(chosen, structured);
}

/** The chosen text holds at least half of what the structured data says the page holds. */
function holdsStructured(chosen: ExtractedArticle, structured: StructuredContent): boolean {
  const text = comparableReading(chosen.blocks);
  const keys = structured.keys.slice(0, MAX_STRUCTURED_KEYS);
  return keys.filter((key) => text.includes(comparable(key).slice(0, 80))).length >= keys.length * 0.5;
}

/**
 * The part of the page that shows the structured content and the chosen text's opening (shownArea),
 * read as the declared body is; only where its reading holds the structured content and is not a
 * list of links.
 */
function shownReading(
  html: string,
  baseUrl: string,
  chosen: ExtractedArticle,
  structured: StructuredContent,
): ExtractedArticle | undefined {
  const body = cleanedCopy(html);
  if (!body) return undefined;
  const area = shownArea(
    body,
    structured.keys.slice(0, MAX_STRUCTURED_KEYS),
    openingOf(chosen.blocks),
    comparable,
  );
  if (!area) return undefined;
  const blocks = readingOf([area], baseUrl, chosen.title);
  const reading = { ...chosen, blocks, method: 'shown' as const };
  if (linkShare(blocks) >= MAX_LINK_SHARE || !holdsStructured(reading, structured)) return undefined;
  return reading;
}

/**
 * The lead of the article's header (its standfirst) ahead of the chosen text, where that text does
 * not hold it: Readability reads the body beside the header, the cleaned page drops the header.
 */
function withLeads(chosen: ExtractedArticle, leads: string[]): ExtractedArticle {
  if (leads.length === 0 || chosen.blocks.length === 0) return chosen;
  const text = comparableReading(chosen.blocks);
  // A header's line can be furniture too (an affiliate disclosure, a credit): judged as any block.
  const missing = leads.filter(
    (lead) => !isBoilerplateBlock(lead) && !text.includes(comparable(lead).slice(0, 80)),
  );
  return missing.length === 0 ? chosen : { ...chosen, blocks: [...missing, ...chosen.blocks] };
}

/**
 * The page's structured content against the text chosen from its markup: where that text holds
 * less than half of what the structured data says the page holds (its ingredients, steps, answers),
 * the structured blocks come first and the chosen text's own blocks after them.
 */
function withStructured(chosen: ExtractedArticle, structured: StructuredContent): ExtractedArticle {
  // The chosen text's blocks that only repeat the structured ones (the recipe card's own list) go.
  const given = new Set(structured.blocks.flatMap(lineWords));
  const title = comparable(chosen.title ?? '');
  const rest = chosen.blocks.filter((block) => {
    const lines = lineWords(withoutLinkTargets(block));
    // The page's title as a heading says nothing the header line does not.
    if (block.startsWith('#') && lines[0] === title) return false;
    return !lines.every((line) => given.has(line));
  });
  return { ...chosen, blocks: [...structured.blocks, ...rest], method: 'structured' };
}

/** Keys of the structured data looked for in the chosen text, at most. */
const MAX_STRUCTURED_KEYS = 100;

/** A block's lines as comparable words, list markers and heading marks left off. */
function lineWords(block: string): string[] {
  return block
    .split('\n')
    .map((line) => comparable(line.replace(/^\s*(?:[-*]|\d+\.|#+)\s+/, '')))
    .filter((line) => line !== '');
}

/**
 * A reading's blocks as one comparable text, made once per array of blocks: the checks against the
 * densest block and the split body's parts, the leads and the structured data read the same reading.
 */
function comparableReading(blocks: string[]): string {
  let text = readingTexts.get(blocks);
  if (text === undefined) {
    text = comparable(blocks.map(withoutLinkTargets).join(' '));
    readingTexts.set(blocks, text);
  }
  return text;
}

/** Blocks arrays are not changed once made: their comparable text stays right. */
const readingTexts = new WeakMap<string[], string>();

/** Words only, lower case: the same text marked up or spaced differently compares equal. */
function comparable(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function chooseReading(document: DomDocument, html: string, metadata: PageMetadata): ExtractedArticle {
  const { articleBody, baseUrl, declaresArticle, description: _description, ...fields } = metadata;
  // What is never content goes before Readability looks: it scores less noise, and faster.
  withoutBoilerplate(document);
  // Only a page that does not call itself an article may read as its main area (measured before
  // Readability changes the document).
  const main = declaresArticle ? null : mainArea(document);
  const mainChars = main ? textChars(main) : 0;
  const mainLinkShare = main && mainChars > 0 ? linkTextLength(main) / mainChars : 1;
  // Measured before Readability changes the document, too.
  const dense = densestBlock(document.body ?? (document.documentElement as DomElement), namedFurniture);
  const declared = declaredBody(document);
  const parts = bodyParts(document.body ?? (document.documentElement as DomElement));
  // A retry of Readability's search (6 % of article pages) starts from the page parsed and cleaned
  // again, so no copy of the page is kept for the searches that never retry.
  const article = readabilityBlocks(document, baseUrl, () => withoutBoilerplate(parse(html)));
  const articleChars = textLength(article?.blocks);
  if (
    article &&
    articleChars >= MIN_ARTICLE_CHARS &&
    !(articleBody && articleChars < articleBody.length * 0.5)
  ) {
    // The page marks its article's body (microdata's `itemprop="articleBody"`, as Blogger, many
    // WordPress themes and news CMSs write it): where Readability's pick holds much less than that
    // element, it took one section of the body (a post's middle part, its intro left out).
    if (declared) {
      const blocks = readingOf([declared], baseUrl, fields.title ?? article.title);
      const chars = textLength(blocks);
      if (chars > articleChars * DECLARED_GAIN && linkShare(blocks) < MAX_LINK_SHARE)
        return { ...fields, ...withTitle(article.title, fields.title), blocks, method: 'microdata' };
    }
    // Readability keeps one best block. On a forum thread, a docs page or a list of results the
    // content is many blocks of the main area, so the cleaned main area wins when it reads as
    // content (few links) and Readability's pick is a small part of it.
    if (main && mainChars > articleChars * 2.5 && mainLinkShare < MAX_LINK_SHARE) {
      // The same main area on a copy of the page (Readability changed this one): an article's
      // readers' comments there do not make it a thread.
      const root = cleanedPage(parse(html));
      const comments = root ? commentAreas(root).map(textOf).join(' ') : '';
      const ownChars = mainChars - (isThread(comments, mainChars, article.blocks) ? 0 : comments.length);
      const page = ownChars > articleChars * 2.5 ? pageBlocks(root, baseUrl) : [];
      if (textLength(page) > articleChars * 2 && linkShare(page) < MAX_LINK_SHARE)
        return { ...fields, ...withTitle(article.title, fields.title), blocks: page, method: 'page' };
    }
    // Readability's pick against the densest block: where its text holds few of that block's
    // paragraphs and less text outside links than they do, it took the wrong block (a sidebar, an
    // archive of teasers) and the dense one is the page's text.
    if (dense && missesDenseBlock(article.blocks, dense)) {
      const blocks = denseBlocks(html, baseUrl, fields.title ?? article.title);
      if (textLength(blocks) > articleChars * 0.5)
        return { ...fields, ...withTitle(article.title, fields.title), blocks, method: 'dense' };
    }
    // The body split into containers of one class in different rows of the layout: Readability
    // read one of them, the others are the rest of the same text.
    const split = missedParts(article.blocks, articleChars, parts);
    if (split) {
      const blocks = partsBlocks(html, baseUrl, split, fields.title ?? article.title);
      if (textLength(blocks) > articleChars && linkShare(blocks) < MAX_LINK_SHARE)
        return { ...fields, ...withTitle(article.title, fields.title), blocks, method: 'parts' };
    }
    return {
      ...fields,
      ...withTitle(article.title, fields.title),
      ...(!fields.byline && article.byline && looksLikeNames(article.byline)
        ? { byline: article.byline }
        : {}),
      blocks: article.blocks,
      method: 'article',
    };
  }
  if (articleBody && articleBody.length >= Math.min(MIN_ARTICLE_CHARS, articleChars + 1)) {
    return { ...fields, blocks: paragraphs(articleBody), method: 'json-ld' };
  }
  const page = pageBlocks(cleanedPage(parse(html)), baseUrl);
  if (article && articleChars >= textLength(page) * 0.5 && articleChars > 0) {
    return { ...fields, blocks: article.blocks, method: 'article' };
  }
  return { ...fields, blocks: page, method: 'page' };
}

/**
 * Whether the main area's comment-named areas (their text, `comments`) are the posts of a thread
 * rather than readers' comments under an article: they hold nearly all of the main area (a forum
 * whose post containers carry "comment" in their names), or Readability's pick is one of them.
 */
function isThread(comments: string, mainChars: number, blocks: string[]): boolean {
  if (comments === '') return false;
  if (comments.length >= mainChars * THREAD_SHARE) return true;
  const opening = openingOf(blocks);
  return opening !== undefined && comparable(comments).includes(comparable(opening).slice(0, 80));
}

/** A reading's first paragraph (not a heading, not a line), its link targets left out. */
function openingOf(blocks: string[]): string | undefined {
  return blocks.map(withoutLinkTargets).find((block) => !block.startsWith('#') && block.length >= 80);
}

/** Comment-named areas holding this share of the main area are its posts (an article's readers' comments held 61-63 %). */
const THREAD_SHARE = 0.8;

/** The declared body wins when its text is this many times Readability's pick. */
const DECLARED_GAIN = 1.3;

/**
 * A copy of the element the page marks as its article's body (`itemprop="articleBody"`), taken
 * before Readability moves its nodes; only where the page marks exactly one.
 */
function declaredBody(document: DomDocument): DomElement | undefined {
  const marked = allUnder(document as unknown as DomElement, marksArticleBody);
  if (marked.length !== 1) return undefined;
  const element = marked[0] as DomElement & { cloneNode(deep: boolean): unknown };
  return element.cloneNode(true) as DomElement;
}

/** `[itemprop~="articleBody"]`. */
function marksArticleBody(element: DomElement): boolean {
  const itemprop = element.getAttribute('itemprop');
  return itemprop?.split(/\s+/).includes('articleBody') === true;
}

/**
 * The reading of elements chosen outside Readability (the declared body, a split body's parts, the
 * densest block), in order: their furniture dropped by name and their comment notices, as in
 * Readability's, then the furniture blocks.
 */
function readingOf(elements: DomElement[], baseUrl: string, title: string | undefined): string[] {
  const blocks: string[] = [];
  for (const element of elements) {
    removeNamedBoilerplate(element);
    dropCommentNotices(element);
    blocks.push(...domToMarkdownBlocks(element as DomNode, { baseUrl }));
  }
  return dropBoilerplateBlocks(blocks, title);
}

/** The page parsed again and cleaned (Readability changed the first copy): its body. */
function cleanedCopy(html: string): DomElement | null {
  const document = withoutBoilerplate(parse(html));
  return document.body ?? document.documentElement;
}

/** `document` with what is never content removed from its body (removeBoilerplate), for chaining. */
function withoutBoilerplate(document: DomDocument): DomDocument {
  removeBoilerplate(document.body ?? document.documentElement);
  return document;
}

/**
 * The parts Readability holds are most of its reading (the rest, its headings and lists, is read
 * again with them): its reading is replaced by the parts.
 */
const HELD_SHARE = 0.6;
/** Prose the other parts of a split body must hold to be read with it: a paragraph or more. */
const MIN_MISSED_PART_CHARS = 150;

/**
 * A split body (bodyParts) whose parts Readability's reading holds in part: its class and how many
 * of its parts to read, up to the last one Readability holds. The parts it holds are most of its
 * text (HELD_SHARE), and those it left out before or between them a paragraph or more. Parts after the
 * last one it holds are not read: there the text has ended, and what follows in a container of the
 * same class is another story's teaser, a disclaimer or the site's "about us".
 */
function missedParts(
  blocks: string[],
  articleChars: number,
  parts: Map<string, BodyPart[]>,
): { name: string; count: number } | undefined {
  if (parts.size === 0) return undefined;
  const text = comparableReading(blocks);
  for (const [name, group] of parts) {
    const held = group.map((part) => text.includes(comparable(part.lead).slice(0, 60)));
    const last = held.lastIndexOf(true);
    let heldChars = 0;
    let missedChars = 0;
    for (let i = 0; i <= last; i++) {
      if (held[i]) heldChars += group[i]?.chars ?? 0;
      else missedChars += group[i]?.chars ?? 0;
    }
    if (heldChars >= articleChars * HELD_SHARE && missedChars >= MIN_MISSED_PART_CHARS)
      return { name, count: last + 1 };
  }
  return undefined;
}

/**
 * A split body's reading: on a cleaned copy of the page, its first `count` containers of that class
 * that hold prose, outermost ones, in document order.
 */
function partsBlocks(
  html: string,
  baseUrl: string,
  split: { name: string; count: number },
  title: string | undefined,
): string[] {
  const body = cleanedCopy(html);
  if (!body) return [];
  const taken: DomElement[] = [];
  for (const element of body.querySelectorAll('[class]')) {
    if (taken.length >= split.count) break;
    if (element.getAttribute('class') === split.name && isBodyPart(element) && !insideAny(element, taken))
      taken.push(element);
  }
  return readingOf(taken, baseUrl, title);
}

function insideAny(element: DomElement, containers: DomElement[]): boolean {
  for (let node = element.parentNode; node; node = node.parentNode)
    if (containers.includes(node as DomElement)) return true;
  return false;
}

/** Paragraphs of the densest block looked for in another reading, at most. */
const MAX_DENSE_PARAGRAPHS = 50;

/**
 * Whether a reading holds fewer than half of the densest block's paragraphs and less text outside
 * links than they hold together.
 */
function missesDenseBlock(blocks: string[], dense: DenseBlock): boolean {
  const paragraphs = dense.paragraphs.slice(0, MAX_DENSE_PARAGRAPHS);
  if (paragraphs.length === 0) return false;
  // The lengths first: on most pages the reading holds more prose than the dense block, and the
  // paragraphs need not be looked for in it.
  let denseChars = 0;
  for (const p of dense.paragraphs) denseChars += p.length;
  let prose = 0;
  for (const block of blocks) prose += withoutLinkTargets(block).length - linkTextChars(block);
  if (denseChars <= prose) return false;
  const text = comparableReading(blocks);
  const found = paragraphs.filter((p) => text.includes(comparable(p).slice(0, 60))).length;
  return found < paragraphs.length * 0.5;
}

function mainArea(document: DomDocument): DomElement | null {
  return (
    document.querySelector('main, [role="main"]') ??
    (document.querySelectorAll('article').length === 1 ? document.querySelector('article') : null)
  );
}

function linkTextLength(element: DomElement): number {
  let length = 0;
  for (const link of allUnder(element, isTag('A'))) length += textChars(link);
  return length;
}

/**
 * Removes what is never content, in one walk over the elements (a CSS selector per kind of
 * furniture walked the whole page once each). On the way it shows content a page hides only until
 * a click — inactive tabs of a docs page (one code sample per language), collapsed `<details>`
 * bodies — and takes headings' class names away, which Readability reads as "unlikely" when they say
 * header (Substack's `header-anchor-post` headings). The site's header and footer go; an article's
 * own header (title, byline, date) stays.
 */
function removeBoilerplate(root: DomElement | null): void {
  if (!root) return;
  const junk: DomElement[] = [];
  // One walk over the elements: the lookups below filter it (the loop changes attributes only).
  const elements = allUnder(root, anyElement) as Array<DomElement & MutableElement>;
  const panels = disclosedPanels(elements);
  const fallbacks: DomElement[] = [];
  let noscripts = 0;
  for (const element of elements) {
    const tag = element.tagName.toUpperCase();
    const role = element.getAttribute('role');
    // What a browser without scripts shows: where a page draws its text by script, the <noscript>
    // beside it holds that text (a Blogger theme's post, a Discourse thread's crawler view).
    if (tag === 'NOSCRIPT' && noscripts++ < MAX_VEILS && holdsContent(element)) {
      fallbacks.push(element);
      continue;
    }
    if (
      role === 'tabpanel' ||
      (element.getAttribute('hidden') !== null && closestFrom(element.parentNode, isTag('DETAILS'))) ||
      (panels.size > 0 && panels.has(element.getAttribute('id') ?? '') && !namedFurniture(element))
    ) {
      element.removeAttribute('hidden');
      element.removeAttribute('aria-hidden');
      if (/display\s*:\s*none/i.test(element.getAttribute('style') ?? '')) element.removeAttribute('style');
    }
    if (/^H[1-6]$/.test(tag)) element.removeAttribute('class');
    // An accordion's class names ("accordion quick-add-hidden") say how it looks, not what it holds:
    // Readability weighs such names down and drops the group, so they go unless they name furniture.
    if (tag === 'DETAILS' && !namedFurniture(element)) {
      element.removeAttribute('class');
      const group = element.parentNode as (DomElement & MutableElement) | null;
      if (group && group !== root && !namedFurniture(group) && onlyDisclosures(group))
        group.removeAttribute('class');
    }
    if (
      BOILERPLATE_TAGS.has(tag) ||
      (tag === 'SCRIPT' && element.getAttribute('type') !== 'application/ld+json') ||
      (role !== null && BOILERPLATE_ROLES.has(role)) ||
      element.getAttribute('aria-modal') === 'true' ||
      element.getAttribute('hidden') !== null ||
      element.getAttribute('aria-hidden') === 'true' ||
      isCustomNavigation(tag) ||
      ((tag === 'HEADER' || tag === 'FOOTER' || isCustomHeaderOrFooter(tag)) &&
        !closestFrom(element.parentNode, isContentArea))
    )
      junk.push(element);
  }
  for (const fallback of fallbacks) unwrap(fallback);
  junk.push(...furnitureByShape(elements));
  // Hidden by an inline style (a loading veil): looked at for the paragraphs it holds, a bounded few.
  let veils = 0;
  for (const element of elements) {
    const style = element.getAttribute('style');
    if (style === null || !(style.includes('none') || style.includes('hidden'))) continue;
    if (++veils > MAX_VEILS) break;
    if (isHidden(element) && !junk.includes(element)) junk.push(element);
  }
  // A form around most of the page's text (ASP.NET's one <form>) whose text sits in tables and divs
  // rather than paragraphs is the page, not a search box; looked at for the first few junk elements,
  // outermost first, so the work stays bounded. (A header or nav that holds most of a page's text is
  // a mega-menu: it still goes.)
  const pageChars = domTextLength(root);
  let checks = 0;
  for (const element of junk) {
    if (!isAttached(element, root)) continue;
    if (!holdsContent(element)) {
      if (
        element.tagName.toUpperCase() === 'FORM' &&
        checks++ < MAX_VEILS &&
        domTextLength(element) * 2 > pageChars
      )
        continue;
      element.remove();
    } else if (isHidden(element) && checks++ < MAX_VEILS && !mostTextOutside(root, element))
      unveil(element as DomElement & MutableElement);
  }
}

/** The element's children in its place. */
function unwrap(element: DomElement): void {
  const parent = element.parentNode as
    | (DomElement & { insertBefore(node: unknown, before: unknown): void })
    | null;
  if (!parent) return;
  for (const child of Array.from(element.childNodes)) parent.insertBefore(child, element);
  element.remove();
}

/**
 * The page's text outside `element` is at least as long as the text inside it: a hidden copy of an
 * article beside the article (a feed's or a paywall's) stays hidden; a veil over the page or a
 * streamed segment under a page's shell holds most of its text.
 */
function mostTextOutside(root: DomElement, element: DomElement): boolean {
  const inside = domTextLength(element);
  return domTextLength(root) - inside >= inside;
}

/**
 * A hidden element that holds an article's paragraphs is hidden until the page's scripts run: a
 * loading veil over the whole page (`visibility:hidden` until the styles arrive), or a segment React
 * streams in hidden and moves into place (`<div hidden id="S:0">`), where the rest of the page shows
 * less text of its own. Readers that do not run scripts see it as the page does once they have:
 * shown. (WCXB's development pages include a blog and a tutorial that read as nothing for this.)
 */
function unveil(element: DomElement & MutableElement): void {
  element.removeAttribute('hidden');
  element.removeAttribute('aria-hidden');
  const style = element.getAttribute('style');
  if (style && HIDING_STYLE.test(style)) element.removeAttribute('style');
}

/** Hidden elements looked at for the paragraphs they hold and the page's beside them, at most: bounded work. */
const MAX_VEILS = 50;

/** Controls looked at for the panels they open, at most: bounded work. */
const MAX_DISCLOSURE_CONTROLS = 200;

/**
 * The ids of panels a button opens (`aria-expanded` with `aria-controls`: accordions, "more"
 * sections), hidden until the click: content, unless the control is a site menu's.
 */
function disclosedPanels(elements: DomElement[]): Set<string> {
  const ids = new Set<string>();
  let looked = 0;
  for (const control of elements) {
    if (control.getAttribute('aria-controls') === null || control.getAttribute('aria-expanded') === null)
      continue;
    if (++looked > MAX_DISCLOSURE_CONTROLS) break;
    if (control.getAttribute('aria-haspopup') !== null) continue;
    if (closestFrom(control, isSiteMenu)) continue;
    for (const id of (control.getAttribute('aria-controls') ?? '').split(/\s+/)) if (id) ids.add(id);
  }
  return ids;
}

const MENU_ROLES = new Set(['navigation', 'banner', 'menubar', 'menu']);
const isNavOrHeader = isTag('NAV', 'HEADER');
/** `nav, header, [role="navigation"], [role="banner"], [role="menubar"], [role="menu"]` as a test. */
function isSiteMenu(element: DomElement): boolean {
  return isNavOrHeader(element) || MENU_ROLES.has(element.getAttribute('role') ?? '');
}

/** A group of `<details>` and nothing else (headings aside): an accordion. */
function onlyDisclosures(group: DomElement): boolean {
  const children = group.childNodes;
  let details = 0;
  for (let i = 0; i < children.length; i++) {
    const child = children[i] as DomElement | undefined;
    if (child?.nodeType !== 1) continue;
    const name = child.nodeName.toUpperCase();
    if (name === 'DETAILS') details++;
    else if (!/^H[1-6]$/.test(name)) return false;
  }
  return details > 0;
}

/**
 * Custom elements are named by the site as classes are (`<pp-navigation>`, `<site-header>`): one
 * named for a site's navigation or menu is navigation, one named for its header or footer is a
 * header or a footer.
 */
const CUSTOM_NAVIGATION = /(?:^|-)(?:nav|navigation|navbar|menu)(?:-|$)/i;
const CUSTOM_HEADER_OR_FOOTER = /(?:^|-)(?:header|footer)(?:-|$)/i;

function isCustomNavigation(tag: string): boolean {
  return tag.includes('-') && CUSTOM_NAVIGATION.test(tag);
}

function isCustomHeaderOrFooter(tag: string): boolean {
  return tag.includes('-') && CUSTOM_HEADER_OR_FOOTER.test(tag);
}

/** Named like furniture: a consent banner, a share bar, a comments area … (in any language for comments). */
function namedFurniture(element: DomElement): boolean {
  const names = `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`;
  return names.length < 300 && (BOILERPLATE_NAMES.test(names) || namesComments(element));
}

/** Text a newsletter box or a consent banner holds at most (more is content around a form). */
const MAX_FURNITURE_CHARS = 600;
/** Levels above its field or button a box may reach, and fields or buttons looked at: bounded work. */
const FURNITURE_LEVELS = 8;
const MAX_FURNITURE_ANCHORS = 200;

/**
 * Furniture told by its shape, in any language: a newsletter box is the little text around an
 * e-mail field; a consent banner is a little text with two or more buttons, outside the page's
 * `<main>` or `<article>`. Each is taken up to its largest ancestor that is still that little.
 */
function furnitureByShape(elements: DomElement[]): DomElement[] {
  const found: DomElement[] = [];
  const content = elements.find(isContentArea);
  // Ancestors known to hold more than furniture (and so do all theirs): each is measured once.
  const big = new Set<DomElement>();
  const little = (element: DomElement) => {
    if (big.has(element)) return false;
    const small =
      !/^(BODY|HTML|MAIN|ARTICLE)$/i.test(element.tagName) &&
      element.getAttribute('role') !== 'main' &&
      domTextLength(element) <= MAX_FURNITURE_CHARS &&
      !firstUnder(element, isTag('H1'));
    if (!small) big.add(element);
    return small;
  };
  const widest = (start: DomElement): DomElement | undefined => {
    let box: DomElement | undefined;
    let node = start.parentNode as DomElement | null;
    for (let level = 0; node && level < FURNITURE_LEVELS && little(node); level++)
      [box, node] = [node, node.parentNode as DomElement | null];
    return box;
  };
  const fields = elements
    .filter(
      (element) =>
        /^INPUT$/i.test(element.tagName) && element.getAttribute('type')?.toLowerCase() === 'email',
    )
    .slice(0, MAX_FURNITURE_ANCHORS);
  for (const field of fields) {
    const box = widest(field);
    if (box) found.push(box);
  }
  if (!content) return found;
  let buttons = 0;
  for (const button of elements) {
    if (!/^BUTTON$/i.test(button.tagName) || closestFrom(button, isContentArea)) continue;
    if (++buttons > MAX_FURNITURE_ANCHORS) break;
    const box = widest(button);
    if (box && allUnder(box, isTag('BUTTON')).length >= 2) found.push(box);
  }
  return found;
}

/** Still in the tree under `root` (an ancestor removed before it takes it along). */
function isAttached(element: DomElement, root: DomElement): boolean {
  for (let node = element.parentNode; node; node = node.parentNode) if (node === root) return true;
  return false;
}

/**
 * A wrapper that holds the article after all: ASP.NET pages put the whole page in one `<form>`,
 * some themes the whole post in a `<header>` or a hidden-until-loaded container.
 */
function holdsContent(element: DomElement): boolean {
  // article, main, [role="main"], [itemprop="articleBody"]; else p: one walk for both.
  let content = false;
  const paragraphs: DomElement[] = [];
  walkElements(element, (e) => {
    if (isContentArea(e) || e.getAttribute('itemprop') === 'articleBody') content = true;
    else if (e.tagName.toUpperCase() === 'P') paragraphs.push(e);
    return content;
  });
  if (content) return true;
  if (paragraphs.length < 4) return false;
  let long = 0;
  for (const p of paragraphs) if (domTextLength(p) > 120 && ++long >= 3) return true;
  return false;
}

/** `article, main, [role="main"]`. */
function isContentArea(element: DomElement): boolean {
  return /^(ARTICLE|MAIN)$/i.test(element.tagName) || element.getAttribute('role') === 'main';
}

/** Elements that belong in `<head>` when a page leaves out its `<body>` tag. */
const HEAD_ELEMENTS = /^(HEAD|TITLE|META|LINK|BASE|STYLE|SCRIPT|NOSCRIPT|TEMPLATE)$/i;

/**
 * linkedom builds the tree as written and does not add the `<html>` and `<body>` HTML lets a page
 * leave out, so such a page's content would sit outside `document.body`: it is moved in.
 */
function parse(page: string): DomDocument {
  const html = withoutHtmlCdata(page);
  const source = /<html[\s>]/i.test(html.slice(0, 8_192)) ? html : `<html>${html}</html>`;
  const document = parseHTML(source).document as unknown as DomDocument;
  const root = document.documentElement as (DomElement & MutableNode) | null;
  const body = document.body as (DomElement & MutableNode) | null;
  if (root && body && body.childNodes.length === 0) {
    for (const node of Array.from(root.childNodes) as Array<DomNode & MutableNode>) {
      if (node !== body && !HEAD_ELEMENTS.test(node.nodeName)) body.appendChild(node);
    }
    if (body.parentNode !== root) root.appendChild(body);
  }
  return document;
}

interface MutableElement {
  removeAttribute(name: string): void;
}
interface MutableNode {
  appendChild(node: unknown): unknown;
}

function readabilityBlocks(
  document: DomDocument,
  baseUrl: string,
  rebuild: () => DomDocument,
): { blocks: string[]; title?: string; byline?: string } | undefined {
  try {
    const reader = new FastReadability(
      document,
      {
        // Hand back the element itself: serialising to HTML only to parse it again costs time.
        serializer: (node: unknown) => node,
        charThreshold: 400,
        // Class names survive, so the furniture filter below can still read them.
        keepClasses: true,
      },
      rebuild,
    );
    const result = reader.parse();
    if (!result?.content) return undefined;
    const root = result.content as unknown as DomElement;
    removeNamedBoilerplate(root);
    dropCommentNotices(root);
    pruneLayoutCells(root);
    return {
      blocks: dropBoilerplateBlocks(
        domToMarkdownBlocks(root as DomNode, { baseUrl }),
        result.title ?? undefined,
      ),
      ...(result.title ? { title: result.title.trim() } : {}),
      ...(result.byline ? { byline: result.byline.trim() } : {}),
    };
  } catch {
    // Readability throws on some broken documents; the fallbacks read them.
    return undefined;
  }
}

/** The page minus what is never content, scoped to its `<main>` (or sole `<article>`) when it has one. */
function cleanedPage(document: DomDocument): DomElement | null {
  withoutBoilerplate(document);
  return mainArea(document) ?? document.body ?? document.documentElement;
}

/** A cleaned page's (cleanedPage) blocks. */
function pageBlocks(root: DomElement | null, baseUrl: string): string[] {
  if (!root) return [];
  dropCommentNotices(root);
  return dropBoilerplateBlocks(domToMarkdownBlocks(root as DomNode, { baseUrl }));
}

/**
 * The densest block's reading: the page parsed and cleaned again (Readability changed the first
 * copy), the same block found, its furniture dropped by name as in Readability's.
 */
function denseBlocks(html: string, baseUrl: string, title: string | undefined): string[] {
  const body = cleanedCopy(html);
  const dense = body ? densestBlock(body, namedFurniture) : undefined;
  return dense ? readingOf([dense.element], baseUrl, title) : [];
}

/** Drops elements named like consent banners, share bars and link lists (not the root itself). */
function removeNamedBoilerplate(root: DomElement): void {
  // [class], [id]
  for (const element of allUnder(root, (e) => e.hasAttribute('class') || e.hasAttribute('id'))) {
    const names = `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`;
    if (
      names.length < 300 &&
      BOILERPLATE_NAMES.test(names) &&
      !isContentTag(element) &&
      !holdsContent(element)
    )
      element.remove();
  }
}

/**
 * Old table layouts put the article in one cell and menus, weather boxes and agendas in the cells
 * beside it; Readability keeps the whole table when its cells score alike. Where one cell holds most
 * of the text, the cells beside it that hold far less are dropped. Data tables are untouched: no
 * single cell of theirs holds half the text.
 */
function pruneLayoutCells(root: DomElement): void {
  const total = textChars(root);
  if (total === 0) return;
  // Readability may hand back a bare row of the layout table (its best candidate), so rows are read.
  for (const row of allUnder(root, isTag('TR'))) {
    const cells = Array.from(row.childNodes as ArrayLike<DomElement>).filter((c) =>
      /^T[DH]$/i.test(c.nodeName),
    );
    if (cells.length < 2 || cells.length > 12) continue;
    const lengths = cells.map(textChars);
    const longest = Math.max(...lengths);
    if (longest < total * 0.5) continue;
    cells.forEach((cell, i) => {
      if ((lengths[i] as number) < longest * 0.4) cell.remove();
    });
  }
}

function textOf(element: DomElement): string {
  return (element.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** `textOf(element).length`, measured without making the text. */
function textChars(element: DomElement): number {
  return spacedTextLength(element as unknown as ChainNode);
}

/**
 * Never dropped by name: an element that is itself the text (`<p class="share-note">`), or words
 * set inside a paragraph's sentence (a news agency's `<span class="dateline">KOBE –</span>` opening
 * the first one).
 */
function isContentTag(element: DomElement): boolean {
  if (/^(P|H[1-6]|PRE|TABLE|BLOCKQUOTE|LI|ARTICLE|MAIN|BODY|HTML)$/i.test(element.tagName)) return true;
  if (!INLINE_TAGS.test(element.tagName)) return false;
  const paragraph = element.parentNode as DomElement | null;
  if (!paragraph || !/^P$/i.test(paragraph.nodeName)) return false;
  // A few words and less than half the paragraph: a part of a sentence, not a line of its own
  // (Readability turns a <div> of promo <span>s, or of a lone <span class="affiliate">, into a <p>).
  const words = textChars(element);
  return words <= MAX_INLINE_PART_CHARS && words * 2 < textChars(paragraph);
}

/** An agency's dateline ("WASHINGTON (Reuters) –") is this long at most. */
const MAX_INLINE_PART_CHARS = 40;

/** Elements that set words within a line rather than a block of their own. */
const INLINE_TAGS = /^(SPAN|B|STRONG|EM|I|SMALL|TIME|ABBR)$/i;

/**
 * Readability guesses a byline from the page's markup, and often takes a line beside it: a date, a
 * reading time, a photo credit, "Name says:", a label. Its guess counts only when it is shaped like
 * names: a few words, no digits, no label or list punctuation, no address.
 */
function looksLikeNames(byline: string): boolean {
  const words = byline.trim().split(/\s+/);
  return words.length <= 6 && !/[\d:|/@•·()]|https?|www\./i.test(byline) && /^\p{L}/u.test(byline.trim());
}

function withTitle(readabilityTitle: string | undefined, metaTitle: string | undefined) {
  const title = metaTitle ?? readabilityTitle;
  return title ? { title } : {};
}

function paragraphs(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p !== '');
}

function textLength(blocks: string[] | undefined): number {
  let length = 0;
  for (const block of blocks ?? []) length += withoutLinkTargets(block).length;
  return length;
}

/** Share of the text that is link text: menus and result lists are mostly links, content is not. */
function linkShare(blocks: string[]): number {
  let linked = 0;
  for (const block of blocks) linked += linkTextChars(block);
  const all = textLength(blocks);
  return all === 0 ? 1 : linked / all;
}
