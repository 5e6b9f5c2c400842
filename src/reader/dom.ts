/**
 * The slice of the DOM the reader uses, typed here because Scout compiles without lib.dom: linkedom's
 * documents and elements have all of it.
 */
import type { DomNode } from './dom-node.js';

export interface DomElement extends DomNode {
  readonly tagName: string;
  readonly parentNode: DomElement | null;
  getAttribute(name: string): string | null;
  /** Whether the attribute is there (linkedom's getAttribute('class') is '' without one). */
  hasAttribute(name: string): boolean;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement> & ArrayLike<DomElement>;
  remove(): void;
  closest(selector: string): DomElement | null;
}

export interface DomDocument {
  readonly documentElement: DomElement | null;
  readonly body: DomElement | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement> & ArrayLike<DomElement>;
}
