/**
 * Lengths of Readability's inner text (`textContent.trim().replace(/\s{2,}/g, ' ')`) measured on
 * linkedom's chain of nodes without joining the text, for FastReadability's helpers.
 */
import { CDATA_SECTION_NODE, CHAIN, ELEMENT_NODE, lowerName, TEXT_NODE } from './dom-walk.js';

/** The members of a linkedom node read here. */
export interface ChainNode {
  nodeType: number;
  localName?: string;
  textContent: string | null;
  [key: symbol]: ChainNode | undefined;
}

/**
 * The length of Readability's inner text for a text given in pieces: its characters other than
 * whitespace, and one for each run of whitespace between them. Pieces are strings (`add`) or other
 * lengths (`append`: the text of a child element, measured on its own, in its place).
 */
export class SpacedLength {
  length = 0;
  /** A character other than whitespace was seen. */
  private started = false;
  /** Whitespace since the last such character (a run that becomes one space if more text follows). */
  private gap = false;
  /** Whitespace before the first such character (trimmed here, a space where this is appended). */
  private lead = false;

  add(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if ((code > 32 && code < 127) || !isSpace(code)) {
        if (this.gap) this.length++;
        this.length++;
        this.started = true;
        this.gap = false;
      } else if (this.started) this.gap = true;
      else this.lead = true;
    }
  }

  /** As if `other`'s text had been added here: the same length as adding its pieces one by one. */
  append(other: SpacedLength): void {
    if (!other.started) {
      if (other.lead) {
        if (this.started) this.gap = true;
        else this.lead = true;
      }
      return;
    }
    if (this.started) this.length += other.length + (this.gap || other.lead ? 1 : 0);
    else {
      this.length = other.length;
      this.lead ||= other.lead;
    }
    this.started = true;
    this.gap = other.gap;
  }
}

/**
 * Each text's length, measured once: the text nodes under an element are read again for every
 * element around them (on a page nested n deep, n times), a lookup instead of a scan of the text.
 * Keyed by the text itself, so a node whose text was changed is measured again. The lengths it gives
 * are shared: they are appended to others, never added to.
 */
export class TextLengths {
  private readonly measured = new Map<string, SpacedLength>();

  of(text: string): SpacedLength {
    let length = this.measured.get(text);
    if (!length) {
      length = new SpacedLength();
      length.add(text);
      this.measured.set(text, length);
    }
    return length;
  }
}

/**
 * The sum of Readability's inner-text lengths of the elements under `element` with one of these tag
 * names (`_getAllNodesWithTag`'s elements: case-insensitive, none inside a `<template>`).
 *
 * One walk: each text node is added to the innermost of those elements still open, and an element's
 * length, when its end is reached, to the one around it. Measuring each element's text on its own
 * reads a text node once for every element around it, the whole text of a page nested n deep n
 * times, and Readability does that for each element it judges.
 */
export function taggedTextLength(element: ChainNode, tagNames: string[], lengths: TextLengths): number {
  if (!CHAIN) throw new Error('taggedTextLength needs linkedom’s chain of nodes');
  const { next: NEXT, end: END } = CHAIN;
  const wanted = new Set(tagNames.map((name) => name.toLowerCase()));
  const open: { end: ChainNode | undefined; text: SpacedLength }[] = [];
  let sum = 0;
  const close = () => {
    const done = open.pop();
    if (!done) return;
    sum += done.text.length;
    open[open.length - 1]?.text.append(done.text);
  };
  // Elements inside a <template> are not found, but its text is in textContent of those around it.
  let templateEnd: ChainNode | undefined;
  const end = element[END];
  for (let next = element[NEXT]; next && next !== end; next = next[NEXT]) {
    while (open.length > 0 && open[open.length - 1]?.end === next) close();
    if (next === templateEnd) templateEnd = undefined;
    if (next.nodeType === ELEMENT_NODE) {
      if (templateEnd !== undefined) continue;
      const name = lowerName(next.localName ?? '');
      if (wanted.has(name)) open.push({ end: next[END], text: new SpacedLength() });
      if (name === 'template') templateEnd = next[END];
    } else if (next.nodeType === TEXT_NODE || next.nodeType === CDATA_SECTION_NODE)
      open[open.length - 1]?.text.append(lengths.of(next.textContent ?? ''));
  }
  while (open.length > 0) close();
  return sum;
}

/**
 * `element.textContent.replace(/\s+/g, ' ').trim().length` without joining the text or running the
 * regex over it: for checks that only weigh an area's text (the main area's, a table cell's).
 */
export function spacedTextLength(element: ChainNode): number {
  if (!CHAIN) return (element.textContent ?? '').replace(/\s+/g, ' ').trim().length;
  const { next: NEXT, end: END } = CHAIN;
  const length = new SpacedLength();
  const end = element[END];
  for (let next = element[NEXT]; next && next !== end; next = next[NEXT])
    if (next.nodeType === TEXT_NODE || next.nodeType === CDATA_SECTION_NODE)
      length.add(next.textContent ?? '');
  return length.length;
}

/** The characters `\s` matches and `trim` removes (ECMAScript's WhiteSpace and LineTerminator). */
export function isSpace(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
