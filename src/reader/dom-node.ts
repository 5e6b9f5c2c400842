/**
 * The few DOM node facts the Markdown walk and its helpers read, kept apart so the walk's helpers
 * need not import the walk.
 */

/** The parts of a DOM node this walk reads (linkedom's nodes have them; no lib.dom types needed). */
export interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
  getAttribute?(name: string): string | null;
}

export const ELEMENT = 1;
export const TEXT = 3;
/** Deeper than this, a subtree is read as its text: real articles nest far less. */
export const MAX_DEPTH = 120;

export function firstElement(node: DomNode, name: string): DomNode | undefined {
  const children = node.childNodes;
  for (let i = 0; i < children.length; i++) {
    const child = children[i] as DomNode;
    if (child.nodeType === ELEMENT && child.nodeName.toUpperCase() === name) return child;
  }
  return undefined;
}

/** An inline style that hides its element. */
export const HIDING_STYLE = /display\s*:\s*none|visibility\s*:\s*hidden/i;

/** Elements the page hides from readers (`hidden`, `aria-hidden`, inline `display:none`). */
export function isHidden(node: DomNode): boolean {
  const get = node.getAttribute;
  if (!get) return false;
  if (get.call(node, 'hidden') !== null) return true;
  if (get.call(node, 'aria-hidden') === 'true') return true;
  const style = get.call(node, 'style');
  return style !== null && HIDING_STYLE.test(style);
}
