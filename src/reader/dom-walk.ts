/**
 * Element lookups without CSS selectors. linkedom compiles a selector (css-select) on every
 * querySelector, querySelectorAll and closest call, which on a page's hundreds of small lookups costs
 * more than the walk itself. These walk linkedom's chain of nodes as its querySelectorAll does (in
 * document order, the root itself left out, a `<template>`'s contents skipped) and test each element
 * with a function, so a lookup finds exactly the elements its selector would.
 */
import { parseHTML } from 'linkedom';
import type { DomElement } from './dom.js';

/** DOM node types, as linkedom numbers them (shared by the walks over its chain). */
export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;
export const CDATA_SECTION_NODE = 4;
/** linkedom's marker for where an element's chain ends. */
const NODE_END = -1;

/**
 * linkedom keeps a document as one chain of nodes (each element's start, its attributes, its
 * children, its end marker), linked by two symbols its querySelectorAll and textContent follow; they
 * are not exported, so they are found on a parsed element by name. Without them (another linkedom),
 * the lookups fall back on querySelectorAll('*').
 */
export const CHAIN = ((): { next: symbol; end: symbol } | undefined => {
  const probe = parseHTML('<html><body><p>x</p></body></html>').document.querySelector('p');
  const symbols = probe ? Object.getOwnPropertySymbols(probe) : [];
  const next = symbols.find((symbol) => symbol.description === 'next');
  const end = symbols.find((symbol) => symbol.description === 'end');
  return next && end ? { next, end } : undefined;
})();

interface Chained {
  nodeType: number;
  [key: symbol]: Chained | undefined;
}

/** Each element under `root` in document order until `visit` returns true (a `<template>`'s contents skipped). */
export function walkElements(root: DomElement, visit: (element: DomElement) => boolean | undefined): void {
  if (!CHAIN) {
    for (const element of Array.from(root.querySelectorAll('*'))) if (visit(element)) return;
    return;
  }
  const { next: NEXT, end: END } = CHAIN;
  const end = (root as unknown as Chained)[END];
  let next = (root as unknown as Chained)[NEXT];
  while (next && next !== end) {
    if (next.nodeType === ELEMENT_NODE) {
      const element = next as unknown as DomElement;
      if (visit(element)) return;
      // linkedom's own test (the lower-case local name), without an upper-case tagName made per element.
      if ((element as unknown as { localName: string }).localName === 'template') next = next[END];
    }
    next = next?.[NEXT];
  }
}

/**
 * Whether elements under `root` nest more than `limit` deep, in one walk of the chain (each element
 * opens a level, its end marker closes it), or of childNodes in another DOM.
 */
export function deeperThan(root: DomElement, limit: number): boolean {
  if (!CHAIN) return deeperByChildNodes(root, limit);
  const { next: NEXT, end: END } = CHAIN;
  const end = (root as unknown as Chained)[END];
  let depth = 0;
  for (let next = (root as unknown as Chained)[NEXT]; next && next !== end; next = next[NEXT]) {
    if (next.nodeType === ELEMENT_NODE) {
      if (++depth > limit) return true;
    } else if (next.nodeType === NODE_END) depth--;
  }
  return false;
}

/** deeperThan through childNodes, with a stack of its own (a deep tree must not overflow the call stack). */
function deeperByChildNodes(root: DomElement, limit: number): boolean {
  const stack: Array<[DomElement, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [element, depth] = stack.pop() as [DomElement, number];
    const children = element.childNodes as ArrayLike<DomElement>;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (child?.nodeType !== ELEMENT_NODE) continue;
      if (depth + 1 > limit) return true;
      stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * `element.textContent.length` without joining the text: the lengths of the text (and CDATA) nodes
 * under it, which textContent joins.
 */
export function textLength(element: DomElement): number {
  if (!CHAIN) return (element.textContent ?? '').length;
  const { next: NEXT, end: END } = CHAIN;
  const end = (element as unknown as Chained)[END];
  let length = 0;
  for (let next = (element as unknown as Chained)[NEXT]; next && next !== end; next = next[NEXT]) {
    if (next.nodeType === TEXT_NODE || next.nodeType === CDATA_SECTION_NODE)
      length += ((next as unknown as { textContent: string | null }).textContent ?? '').length;
  }
  return length;
}

/**
 * The data of the text nodes under `root` (CDATA left out), in document order, the subtrees of the
 * elements `skip` names left out (and none at all where it names `root`): the parts of a textContent
 * without the page's scripts, say, in one walk of the chain instead of a childNodes list per element.
 */
export function textsUnder(root: DomElement, skip: (element: DomElement) => boolean): string[] {
  const texts: string[] = [];
  if (skip(root)) return texts;
  if (!CHAIN) {
    collectTexts(root, skip, texts);
    return texts;
  }
  const { next: NEXT, end: END } = CHAIN;
  const end = (root as unknown as Chained)[END];
  for (let next = (root as unknown as Chained)[NEXT]; next && next !== end; next = next?.[NEXT]) {
    if (next.nodeType === TEXT_NODE) texts.push((next as unknown as { textContent: string }).textContent);
    else if (next.nodeType === ELEMENT_NODE && skip(next as unknown as DomElement)) next = next[END];
  }
  return texts;
}

/** textsUnder through childNodes (another DOM than linkedom's). */
function collectTexts(element: DomElement, skip: (element: DomElement) => boolean, texts: string[]): void {
  const children = element.childNodes as ArrayLike<DomElement>;
  for (let i = 0; i < children.length; i++) {
    const child = children[i] as DomElement;
    if (child.nodeType === TEXT_NODE) texts.push(child.textContent ?? '');
    else if (child.nodeType === ELEMENT_NODE && !skip(child)) collectTexts(child, skip, texts);
  }
}

/**
 * The outermost elements under `root` (not `root` itself) that pass `test`, in document order: a
 * walk that does not go into an element that passed, at most `max` of them.
 */
export function outermostUnder(
  root: DomElement,
  test: (element: DomElement) => boolean,
  max = Number.POSITIVE_INFINITY,
): DomElement[] {
  const found: DomElement[] = [];
  const stack: DomElement[] = [root];
  while (stack.length > 0 && found.length < max) {
    const element = stack.pop() as DomElement;
    if (element !== root && test(element)) {
      found.push(element);
      continue;
    }
    const children = element.childNodes as ArrayLike<DomElement>;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child?.nodeType === ELEMENT_NODE) stack.push(child);
    }
  }
  return found;
}

/** The first element under `root` that passes `test` (querySelector). */
export function firstUnder(root: DomElement, test: (element: DomElement) => boolean): DomElement | null {
  let found: DomElement | null = null;
  walkElements(root, (element) => {
    if (test(element)) found = element;
    return found !== null;
  });
  return found;
}

/** Every element: `allUnder(root, anyElement)` is `querySelectorAll('*')` without a selector. */
export const anyElement = (): boolean => true;

/** The elements under `root` that pass `test`, in document order (querySelectorAll). */
export function allUnder(root: DomElement, test: (element: DomElement) => boolean): DomElement[] {
  const found: DomElement[] = [];
  walkElements(root, (element) => {
    if (test(element)) found.push(element);
    return false;
  });
  return found;
}

/** `element` or its nearest ancestor element that passes `test` (closest). */
export function closestFrom(
  element: DomElement | null | undefined,
  test: (element: DomElement) => boolean,
): DomElement | null {
  for (let node = element; node; node = node.parentNode) {
    if (node.nodeType !== ELEMENT_NODE) return null;
    if (test(node)) return node;
  }
  return null;
}

/**
 * Tag name test in upper case, as linkedom gives HTML tag names: `tagName.toUpperCase()` is one of
 * `names`. linkedom makes tagName anew from the local name on every read; the local name is compared
 * instead, upper-cased only where it is no longer than a name (upper-casing never shortens a string).
 */
export const isTag = (...names: string[]) => {
  const upper = names.map((name) => name.toUpperCase());
  return (element: DomElement): boolean => {
    const name = (element as unknown as { localName?: string }).localName;
    if (typeof name !== 'string') return upper.includes(element.tagName.toUpperCase());
    for (const wanted of upper)
      if (name.length <= wanted.length && name.toUpperCase() === wanted) return true;
    return false;
  };
};

/**
 * Lower-case names, each made once: the tag walks compare every element's name case-insensitively
 * (FastReadability's, taggedTextLength), and Readability's own elements are created with upper-case
 * names. A page names a few dozen tags; past 1,000 names each is lower-cased where it is read.
 */
const lowerNames = new Map<string, string>();
export function lowerName(name: string): string {
  let lower = lowerNames.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    if (lowerNames.size < 1_000) lowerNames.set(name, lower);
  }
  return lower;
}
