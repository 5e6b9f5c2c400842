/**
 * A linear pre-check of HTML before a DOM is built from it. htmlparser2's Parser (inside linkedom)
 * searches its stack of open elements, which is quadratic on 100k nested tags, and Readability walks
 * the tree recursively; such pages are read as flat text instead (html-to-text.ts, linear). The
 * check is htmlparser2's bare Tokenizer, a single pass with a counter, no stack.
 */
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

/** Real pages nest well under this (even with every `<p>` and `<li>` left unclosed). */
export const MAX_OPEN_ELEMENTS = 2_500;
/** Elements a page may have before it is read as flat text (a 512 KB page of `<b>` has 170k). */
export const MAX_ELEMENTS = 60_000;

const VOID = new Set(
  'area base br col embed hr img input link meta param source track wbr basefont bgsound frame keygen'.split(
    ' ',
  ),
);

export interface MarkupShape {
  elements: number;
  /** Most elements open at once, counting unclosed ones (an upper bound of the tree's depth). */
  maxOpen: number;
}

export function markupShape(html: string): MarkupShape {
  const counter = new ShapeCounter(html);
  const tokenizer = new Tokenizer({ xmlMode: false, decodeEntities: false }, counter);
  tokenizer.write(html);
  tokenizer.end();
  return { elements: counter.elements, maxOpen: counter.maxOpen };
}

export function isPathological(shape: MarkupShape): boolean {
  return shape.maxOpen > MAX_OPEN_ELEMENTS || shape.elements > MAX_ELEMENTS;
}

class ShapeCounter implements TokenizerCallbacks {
  elements = 0;
  maxOpen = 0;
  private open = 0;
  private name = '';

  constructor(private readonly html: string) {}

  onopentagname(start: number, end: number): void {
    this.name = this.html.slice(start, end).toLowerCase();
    this.elements++;
  }
  /** `<x/>`: the tokenizer reports this instead of onopentagend, so nothing was opened. */
  onselfclosingtag(): void {}
  onopentagend(): void {
    if (!VOID.has(this.name)) {
      this.open++;
      if (this.open > this.maxOpen) this.maxOpen = this.open;
    }
  }
  onclosetag(): void {
    if (this.open > 0) this.open--;
  }
  onattribdata(): void {}
  onattribentity(): void {}
  onattribend(): void {}
  onattribname(): void {}
  oncdata(): void {}
  oncomment(): void {}
  ondeclaration(): void {}
  onend(): void {}
  onprocessinginstruction(): void {}
  ontext(): void {}
  ontextentity(): void {}
}
