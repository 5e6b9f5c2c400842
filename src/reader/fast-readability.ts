/**
 * Mozilla Readability with a few of its helpers done in fewer steps on linkedom, each answering
 * exactly as Readability's own does (the same nodes, in the same order, the same booleans):
 *
 * - `_getAllNodesWithTag`: linkedom compiles a CSS selector (css-select) for every call; a walk that
 *   compares tag names finds the same elements in document order (skipping `<template>` contents as
 *   linkedom's querySelectorAll does);
 * - `_isProbablyVisible`: linkedom builds a CSSStyleDeclaration (a Proxy over the parsed attribute)
 *   for every element it is asked about; an element without a `style` attribute has no display or
 *   visibility to read, so only its other attributes are looked at;
 * - `_isValidByline`: Readability measures every element's whole text (the page's, for `<body>`)
 *   before looking at its names; the names go first, the text only for an element they match;
 * - `_isElementWithoutContent` and `_hasChildBlockElement`: a walk that stops at the first text or
 *   block found, instead of the whole text of the element joined (and a NodeList built per node);
 * - `_getLinkDensity`: one walk that counts the lengths of the element's text and of each link's
 *   text as Readability's trimmed, space-collapsed text would have them, instead of joining, trimming
 *   and collapsing the element's whole text and then each link's again (a candidate near the top of
 *   the page holds most of its text);
 * - `_getTextDensity`: one walk that measures every element of the given tags under the element
 *   (each one's text a part of the one around it), instead of each one's whole text on its own: on a
 *   page nested n deep that read the text n times for each of the n elements judged, n³ in all
 *   (a page 1,000 divs deep, each with a few words, took 15 s);
 * - both measure each text node's text once for the page (spaced-length.ts), not once for every
 *   element around it;
 * - `_grabArticle`: Readability serialises the article it found into a log line even when it does
 *   not log; without `debug` that line's HTML is not built. And before its search it serialises the
 *   whole page (`page.innerHTML`) to parse it back for a retry (6 % of article pages, 18 % of
 *   WCXB's): a retry puts a copy of the page's nodes in place instead — no string built. The copy
 *   is of the page as the search found it, or, where the caller can rebuild the document (Scout
 *   parses and cleans it again), made from that only when a retry comes: the searches that never
 *   retry copy nothing.
 * - `_fixRelativeUris`: Readability resolves the article's links and images against the page's base
 *   (linkedom finds `<base>` with a selector run over the page); Scout resolves links itself as it
 *   writes Markdown and reads no image's source, so only what its resolution would not do the same is
 *   kept (a `javascript:` link becomes its contents; under a `<base href>` a `#` link points there);
 * - `_unwrapNoscriptImages`: the placeholder images it removes are found in one walk that reads their
 *   attributes off linkedom's chain, not through an attribute map (a Proxy) built per image;
 * - `_getAllNodesWithTag` lower-cases each tag name once, not once per element on every walk.
 *
 * What Readability chooses is unchanged; test/reader/fast-readability.test.ts compares both on pages
 * (and the Markdown Scout writes with either link resolution).
 */
import { Readability } from '@mozilla/readability';
import type { DomElement } from './dom.js';
import {
  CDATA_SECTION_NODE,
  CHAIN,
  ELEMENT_NODE,
  firstUnder,
  isTag,
  lowerName,
  TEXT_NODE,
} from './dom-walk.js';
import { type ChainNode, SpacedLength, TextLengths, taggedTextLength } from './spaced-length.js';

/** The members of a linkedom node these helpers read. */
interface Node {
  nodeType: number;
  tagName?: string;
  localName?: string;
  className?: string;
  textContent: string | null;
  firstChild: Node | null;
  nextSibling: Node | null;
  parentNode: Node | null;
  children?: ArrayLike<Node>;
  childNodes: ArrayLike<Node>;
  getAttribute?(name: string): string | null;
  hasAttribute?(name: string): boolean;
  getElementsByTagName?(name: string): ArrayLike<Node>;
}

/** Readability's own helpers (not in its type declarations), as this subclass calls them. */
interface ReadabilityHelpers {
  REGEXPS: { byline: RegExp; hashUrl: RegExp };
  _debug: boolean;
  _doc: { body: Node | null; createTextNode(text: string): Node; createElement(name: string): Node };
  _fixRelativeUris(articleContent: Node): void;
  _unwrapNoscriptImages(doc: Node): void;
  _removeScripts(doc: Node): void;
  _prepDocument(): void;
  _grabArticle(page?: Node | null): Node | null;
  _getLinkDensity(element: Node): number;
  _getTextDensity(element: Node, tags: string[]): number;
  DIV_TO_P_ELEMS: Set<string | undefined>;
  _isProbablyVisible(node: Node): boolean;
  _getAllNodesWithTag(node: Node, tagNames: string[]): Node[];
  _hasChildBlockElement(element: Node): boolean;
  _isValidByline(node: Node, matchString: string): boolean;
  _getInnerText(element: Node, normalizeSpaces?: boolean): string;
  _cleanConditionally(element: Node, tag: string): void;
  _removeNodes(
    nodes: ArrayLike<Node>,
    filter?: (node: Node, index: number, nodes: ArrayLike<Node>) => boolean,
  ): void;
}

/** The DOM changes the overrides below make. */
interface MutableNode extends Node {
  setAttribute(name: string, value: string): void;
  remove(): void;
  appendChild(node: Node): Node;
  replaceChild(node: Node, old: Node): Node;
}

type ReadabilityOptions = ConstructorParameters<typeof Readability>[1];
type ReadabilityResult = ReturnType<Readability['parse']>;

type Chained = Node & Record<symbol, Node | undefined>;

/** Base class typed with the helpers overridden below. */
const Base = Readability as unknown as new (
  document: unknown,
  options?: ReadabilityOptions,
) => ReadabilityHelpers & { parse(): ReadabilityResult };

export class FastReadability extends Base {
  /**
   * `rebuild`, where given, makes a new copy of the document as it was handed to this reader (parsed
   * and cleaned the same way): a retry of the search starts from it, instead of a copy of the page
   * kept for every search.
   */
  constructor(
    document: unknown,
    private readonly options?: ReadabilityOptions,
    private readonly rebuild?: () => unknown,
  ) {
    super(document, options);
  }

  /**
   * The body of a rebuilt document, brought to where this reader's page stood when its search began
   * (Readability's own steps before the search, run by a reader of its own), its nodes adopted here.
   */
  private preparedBody(rebuild: () => unknown): Node {
    const document = rebuild() as Node & { body: Node | null };
    const reader = new FastReadability(document, this.options);
    reader._unwrapNoscriptImages(document);
    reader._removeScripts(document);
    reader._prepDocument();
    const body = document.body;
    if (!body || !CHAIN) throw new Error('the rebuilt page has no body to search');
    const { next: NEXT, end: END } = CHAIN;
    const owner = this._doc as unknown;
    (body as Adoptable).ownerDocument = owner;
    const end = (body as Chained)[END];
    for (let next = (body as Chained)[NEXT]; next && next !== end; next = (next as Chained)[NEXT])
      (next as Adoptable).ownerDocument = owner;
    return body;
  }

  /** The lengths of the page's texts, for _getLinkDensity and _getTextDensity. */
  private readonly lengths = new TextLengths();

  /**
   * Texts read while one element is judged by _cleanConditionally (its text is read for commas,
   * links, headings, lists and text density, five times or more), cleared before each element: the
   * judgement reads the tree and changes nothing, removal comes after it.
   */
  private texts: Map<Node, string>[] | undefined;

  override _cleanConditionally(element: Node, tag: string): void {
    const outer = this.texts;
    this.texts = [new Map(), new Map()];
    try {
      super._cleanConditionally(element, tag);
    } finally {
      this.texts = outer;
    }
  }

  override _removeNodes(
    nodes: ArrayLike<Node>,
    filter?: (node: Node, index: number, nodes: ArrayLike<Node>) => boolean,
  ): void {
    const texts = this.texts;
    if (!texts || !filter) {
      super._removeNodes(nodes, filter);
      return;
    }
    super._removeNodes(nodes, function (this: unknown, node, index, list) {
      for (const map of texts) map.clear();
      return filter.call(this, node, index, list);
    });
  }

  override _getInnerText(element: Node, normalizeSpaces?: boolean): string {
    const texts = this.texts?.[normalizeSpaces === false ? 1 : 0];
    if (!texts) return super._getInnerText(element, normalizeSpaces);
    let text = texts.get(element);
    if (text === undefined) {
      text = super._getInnerText(element, normalizeSpaces);
      texts.set(element, text);
    }
    return text;
  }

  override _getAllNodesWithTag(node: Node, tagNames: string[]): Node[] {
    // An element's or a document's chain (linkedom's document querySelectorAll walks its own too).
    if (!CHAIN || (node as Chained)[CHAIN.end] === undefined)
      return super._getAllNodesWithTag(node, tagNames);
    const { next: NEXT, end: END } = CHAIN;
    const wanted = new Set(tagNames.map((name) => name.toLowerCase()));
    const found: Node[] = [];
    // linkedom's querySelectorAll walk (its element's chain of nodes, a <template>'s contents
    // skipped) with css-select's test for a list of tag names (case-insensitive in HTML).
    const end = (node as Chained)[END];
    let next = (node as Chained)[NEXT];
    while (next && next !== end) {
      if (next.nodeType === ELEMENT_NODE) {
        const name = lowerName(next.localName ?? '');
        if (wanted.has(name)) found.push(next);
        next = name === 'template' ? (next as Chained)[END] : next;
      }
      next = (next as Chained)[NEXT];
    }
    return found;
  }

  /**
   * Readability resolves every link and image of the article against linkedom's `baseURI` (the
   * `<base href>`, found by a selector run over the page, or null). Scout resolves links itself as it
   * writes Markdown (html-to-markdown.ts, against the same base) and reads no image's source, so what
   * stays of it is what Scout's resolution would not do the same: a `javascript:` link becomes its
   * contents, and under a `<base href>` an in-page `#` link points at the base (Readability leaves
   * it alone only where there is no base).
   */
  override _fixRelativeUris(articleContent: Node): void {
    let base: string | null | undefined;
    for (const link of this._getAllNodesWithTag(articleContent, ['a'])) {
      const href = link.getAttribute?.('href');
      if (!href) continue;
      if (href.startsWith('#')) {
        base ??= firstUnder(this._doc as unknown as DomElement, isBase)?.getAttribute('href') ?? null;
        const resolved = base === null ? undefined : URL.parse(href, base)?.href;
        if (resolved !== undefined) (link as MutableNode).setAttribute('href', resolved);
        continue;
      }
      if (!href.startsWith('javascript:')) continue;
      const only = link.childNodes.length === 1 ? link.childNodes[0] : undefined;
      const replacement =
        only?.nodeType === TEXT_NODE
          ? this._doc.createTextNode(link.textContent ?? '')
          : this._doc.createElement('span');
      if (only?.nodeType !== TEXT_NODE)
        while (link.firstChild) (replacement as MutableNode).appendChild(link.firstChild);
      (link.parentNode as MutableNode | null)?.replaceChild(replacement, link);
    }
  }

  /**
   * Readability's first step here removes every `<img>` with nothing that names an image (a
   * placeholder a script would fill): it lists the page's images, then builds each one's attribute
   * map (a Proxy per image). The same test reads the attributes where linkedom keeps them, right
   * after the element on its chain. Its second step (a `<noscript>` holding one image replaces the
   * placeholder before it) is Readability's own, run only where the page still has a `<noscript>`
   * (Scout's boilerplate pass took out or opened those in the body); by then no placeholder is left
   * for its first step to remove.
   */
  override _unwrapNoscriptImages(doc: Node): void {
    if (!CHAIN) {
      super._unwrapNoscriptImages(doc);
      return;
    }
    const { next: NEXT, end: END } = CHAIN;
    const placeholders: Node[] = [];
    let noscripts = false;
    const end = (doc as Chained)[END];
    for (let next = (doc as Chained)[NEXT]; next && next !== end; next = (next as Chained)[NEXT]) {
      if (next.nodeType !== ELEMENT_NODE) continue;
      // getElementsByTagName('img') in an HTML document: the local name.
      if (next.localName === 'noscript') noscripts = true;
      else if (next.localName === 'img' && !namesAnImage(next)) placeholders.push(next);
    }
    for (const img of placeholders) (img as MutableNode).remove();
    if (noscripts) super._unwrapNoscriptImages(doc);
  }

  override _grabArticle(page?: Node | null): Node | null {
    const searched = page ?? this._doc.body;
    const rebuild = this.rebuild;
    const source = rebuild && searched === this._doc.body ? () => this.preparedBody(rebuild) : undefined;
    const snapshot = searched && CHAIN ? new RetrySnapshot(searched, source) : undefined;
    let article: Node | null;
    try {
      article = super._grabArticle(page);
    } finally {
      snapshot?.release();
    }
    // parse() logs "Grabbed: " + article.innerHTML right after this returns; its log does nothing
    // without debug, so that first read of innerHTML gets '' instead of the article serialised.
    if (article && !this._debug) skipNextInnerHtml(article);
    return article;
  }

  override _getLinkDensity(element: Node): number {
    if (!CHAIN) return super._getLinkDensity(element);
    const { next: NEXT, end: END } = CHAIN;
    const text = new SpacedLength();
    // Links in document order (getElementsByTagName('a')), the ones still open as a stack.
    const links: { end: Node | undefined; text: SpacedLength; href: string | null }[] = [];
    const open: typeof links = [];
    const end = (element as Chained)[END];
    for (let next = (element as Chained)[NEXT]; next && next !== end; next = (next as Chained)[NEXT]) {
      while (open.length > 0 && open[open.length - 1]?.end === next) open.pop();
      if (next.nodeType === ELEMENT_NODE) {
        // getElementsByTagName('a') in an HTML document: the lower-case local name.
        if (next.localName === 'a') {
          const link = {
            end: (next as Chained)[END],
            text: new SpacedLength(),
            href: next.getAttribute?.('href') ?? null,
          };
          links.push(link);
          open.push(link);
        }
      } else if (next.nodeType === TEXT_NODE || next.nodeType === CDATA_SECTION_NODE) {
        const piece = this.lengths.of(next.textContent ?? '');
        text.append(piece);
        for (const link of open) link.text.append(piece);
      }
    }
    if (text.length === 0) return 0;
    let linkLength = 0;
    for (const link of links) {
      const coefficient = link.href && this.REGEXPS.hashUrl.test(link.href) ? 0.3 : 1;
      linkLength += link.text.length * coefficient;
    }
    return linkLength / text.length;
  }

  override _getTextDensity(element: Node, tags: string[]): number {
    if (!CHAIN) return super._getTextDensity(element, tags);
    const textLength = this._getInnerText(element, true).length;
    if (textLength === 0) return 0;
    // Readability's sum of _getInnerText(child, true).length over _getAllNodesWithTag(element, tags).
    return taggedTextLength(element as unknown as ChainNode, tags, this.lengths) / textLength;
  }

  override _isProbablyVisible(node: Node): boolean {
    if (node.getAttribute?.('style') !== null) return super._isProbablyVisible(node);
    // Readability's test less the style's display and visibility (none without a style attribute).
    return (
      !node.hasAttribute?.('hidden') &&
      (!node.hasAttribute?.('aria-hidden') ||
        node.getAttribute?.('aria-hidden') !== 'true' ||
        Boolean(node.className?.includes?.('fallback-image')))
    );
  }

  override _isValidByline(node: Node, matchString: string): boolean {
    const rel = node.getAttribute?.('rel');
    const itemprop = node.getAttribute?.('itemprop');
    if (!(rel === 'author' || itemprop?.includes('author') || this.REGEXPS.byline.test(matchString)))
      return false;
    return super._isValidByline(node, matchString);
  }

  _isElementWithoutContent(node: Node): boolean {
    if (node.nodeType !== ELEMENT_NODE || hasText(node)) return false;
    const children = node.children?.length ?? 0;
    return (
      children === 0 ||
      children ===
        (node.getElementsByTagName?.('br').length ?? 0) + (node.getElementsByTagName?.('hr').length ?? 0)
    );
  }

  override _hasChildBlockElement(element: Node): boolean {
    if (!CHAIN) return super._hasChildBlockElement(element);
    const { next: NEXT, end: END } = CHAIN;
    const end = (element as Chained)[END];
    for (let next = (element as Chained)[NEXT]; next && next !== end; next = (next as Chained)[NEXT])
      if (next.nodeType === ELEMENT_NODE && this.DIV_TO_P_ELEMS.has(next.tagName)) return true;
    return false;
  }
}

/** linkedom's `querySelector('base')`, the element its `baseURI` reads. */
const isBase = isTag('BASE');

/** The token `page.innerHTML` reads while a snapshot stands for it. */
const SNAPSHOT = '\u0000scout-retry-snapshot';

/**
 * Readability's snapshot of the page it searches, as a copy of its nodes. Readability reads
 * `page.innerHTML` once before its search and, for each retry, sets it back: here the read gives a
 * token, and setting the token puts a copy of the page as it was in place of the page's children
 * (instead of serialising the page and parsing it again). The copy is taken when the token is read,
 * or, given a `source` of the page as it was, made from it only when a retry needs it (most searches
 * never retry: 94 % of article pages). Any other read or write of `innerHTML` is linkedom's own.
 */
class RetrySnapshot {
  private copy: Node | undefined;
  private taken = false;

  constructor(
    private readonly page: Node,
    source?: () => Node,
  ) {
    const linkedom = ownerDescriptor(page, 'innerHTML');
    if (!linkedom?.get || !linkedom.set) return;
    const snapshot = this;
    Object.defineProperty(page, 'innerHTML', {
      configurable: true,
      get(this: Node) {
        if (snapshot.taken) return linkedom.get?.call(this);
        snapshot.taken = true;
        if (!source) snapshot.copy = (this as Copyable).cloneNode(true);
        return SNAPSHOT;
      },
      set(this: Node, html: string) {
        if (html !== SNAPSHOT || !snapshot.taken) {
          linkedom.set?.call(this, html);
          return;
        }
        snapshot.copy ??= source?.();
        if (!snapshot.copy) throw new Error('no copy of the page to retry the search on');
        const fresh = (snapshot.copy as Copyable).cloneNode(true);
        (this as Copyable).replaceChildren(...Array.from(fresh.childNodes));
      },
    });
  }

  /** linkedom's innerHTML again, the copy let go. */
  release(): void {
    delete (this.page as { innerHTML?: unknown }).innerHTML;
    this.copy = undefined;
  }
}

/** A node whose document linkedom reads from a plain property. */
interface Adoptable extends Node {
  ownerDocument: unknown;
}

interface Copyable extends Node {
  cloneNode(deep: boolean): Node;
  replaceChildren(...nodes: Node[]): void;
}

/** A property's descriptor where the object's prototype chain defines it. */
function ownerDescriptor(object: object, name: string): PropertyDescriptor | undefined {
  for (let proto = Object.getPrototypeOf(object); proto; proto = Object.getPrototypeOf(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (descriptor) return descriptor;
  }
  return undefined;
}

/** `element.innerHTML` reads '' once (then linkedom's getter again): for a string nobody reads. */
function skipNextInnerHtml(element: Node): void {
  Object.defineProperty(element, 'innerHTML', {
    configurable: true,
    get(this: Node) {
      delete (this as { innerHTML?: unknown }).innerHTML;
      return '';
    },
    set(this: Node, html: string) {
      delete (this as { innerHTML?: unknown }).innerHTML;
      (this as { innerHTML?: unknown }).innerHTML = html;
    },
  });
}

/** linkedom's node type of an attribute (its attributes follow their element on the chain). */
const ATTRIBUTE_NODE = 2;
const IMAGE_ATTRIBUTES = new Set(['src', 'srcset', 'data-src', 'data-srcset']);

/** Readability's test for an `<img>` to keep: an attribute named for a source, or a value naming an image file. */
function namesAnImage(img: Node): boolean {
  const { next: NEXT } = CHAIN as { next: symbol };
  for (let attr = (img as Chained)[NEXT]; attr?.nodeType === ATTRIBUTE_NODE; attr = (attr as Chained)[NEXT]) {
    const { name, value } = attr as unknown as { name: string; value: string };
    if (IMAGE_ATTRIBUTES.has(name) || /\.(jpg|jpeg|png|webp)/i.test(value)) return true;
  }
  return false;
}

/** Whether any text under `node` is more than whitespace (`textContent.trim()` is not empty). */
function hasText(node: Node): boolean {
  if (!CHAIN) return (node.textContent ?? '').trim() !== '';
  const { next: NEXT, end: END } = CHAIN;
  const end = (node as Chained)[END];
  for (let next = (node as Chained)[NEXT]; next && next !== end; next = (next as Chained)[NEXT]) {
    // The text nodes element.textContent joins, each tested on its own.
    if (
      (next.nodeType === TEXT_NODE || next.nodeType === CDATA_SECTION_NODE) &&
      /\S/.test(next.textContent ?? '')
    )
      return true;
  }
  return false;
}
