/**
 * Where the page shows what its structured data says (a recipe card's ingredients and steps beside
 * the post about it), the part of the page that shows it reads better than the data: it keeps the
 * page's own sub-headings ("Für den Mürbeteig:"), amounts and notes as written, and the text around
 * the card. Readability often keeps only one of the card's lists, or only the post. The area is the
 * nearest element that holds the chosen reading's opening and most of the data's keys as text.
 */
import type { DomElement } from './dom.js';
import { outermostUnder, textLength } from './dom-walk.js';

/** An element with more text than this holds several keys' elements: its children are compared instead. */
const MAX_MATCH_CHARS = 2_000;
/** Keys shorter than this (a lone "Salz") could match anywhere: not looked for. */
const MIN_KEY_CHARS = 6;
/** The compared start of a key or of the reading's opening. */
const KEY_PREFIX = 60;
/** The area holds this share of the keys found on the page (one stray match elsewhere may not count). */
const AREA_SHARE = 0.8;

const NOT_SHOWN = /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/i;

/**
 * The element that shows the structured content: the deepest one holding `AREA_SHARE` of the keys the
 * page shows and the opening of the chosen reading (when the page shows that). Undefined when the
 * page shows fewer than half of the keys.
 */
export function shownArea(
  root: DomElement,
  keys: readonly string[],
  opening: string | undefined,
  comparable: (text: string) => string,
): DomElement | undefined {
  // Spaces left out: a table's cells join without one in an element's text ("200 gMehl").
  const squashed = (text: string) => comparable(text).replace(/ /g, '');
  const prefixes = keys.map((key) => squashed(key).slice(0, KEY_PREFIX));
  const wanted = new Set(prefixes.filter((key) => key.length >= MIN_KEY_CHARS));
  if (wanted.size === 0) return undefined;
  const lead = opening ? squashed(opening).slice(0, KEY_PREFIX) : '';
  const shown: DomElement[] = [];
  let leadAt: DomElement | undefined;
  // Each character of the page is compared once: in the outermost element short enough to hold one
  // key (a list of ingredients, a step), not again in every element around it.
  for (const chunk of shortestOutermost(root)) {
    const words = squashed(chunk.textContent ?? '');
    for (const key of wanted) {
      if (!words.includes(key)) continue;
      wanted.delete(key);
      shown.push(chunk);
    }
    if (lead && !leadAt && words.includes(lead)) leadAt = chunk;
    if (wanted.size === 0 && (!lead || leadAt !== undefined)) break;
  }
  if (shown.length < new Set(prefixes).size * 0.5) return undefined;
  // Each ancestor's count of shown keys beneath it, and its depth.
  const count = new Map<DomElement, number>();
  const depth = new Map<DomElement, number>();
  for (const element of shown) {
    const chain = ancestors(element, root);
    chain.forEach((ancestor, i) => {
      count.set(ancestor, (count.get(ancestor) ?? 0) + 1);
      depth.set(ancestor, chain.length - i);
    });
  }
  const holdsLead = new Set(leadAt ? ancestors(leadAt, root) : []);
  let best: DomElement | undefined;
  for (const [element, n] of count) {
    if (n < shown.length * AREA_SHARE) continue;
    if (leadAt && !holdsLead.has(element)) continue;
    if (!best || (depth.get(element) ?? 0) > (depth.get(best) ?? 0)) best = element;
  }
  return best === root ? undefined : best;
}

/** The outermost elements under `root` with at most MAX_MATCH_CHARS of text, in document order (scripts aside). */
function shortestOutermost(root: DomElement): DomElement[] {
  // A script's text (the JSON-LD itself) is not shown: taken whole, then left out.
  const short = (element: DomElement) =>
    NOT_SHOWN.test(element.tagName) || textLength(element) <= MAX_MATCH_CHARS;
  return outermostUnder(root, short).filter((element) => !NOT_SHOWN.test(element.tagName));
}

/** `element` and its ancestors up to `root`, nearest first. */
function ancestors(element: DomElement, root: DomElement): DomElement[] {
  const chain: DomElement[] = [];
  for (let node: DomElement | null = element; node; node = node.parentNode as DomElement | null) {
    chain.push(node);
    if (node === root) break;
  }
  return chain;
}
