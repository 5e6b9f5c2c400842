/**
 * A tiny element builder. Text always goes in as text nodes (never parsed as HTML): everything the
 * server sends is untrusted, and only markdown.ts may produce markup, through the sanitiser.
 */
type Attrs = Record<string, string | boolean | undefined>;
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

/** Shows or hides without removing (keeps the element's place and its listeners). */
export function show(el: HTMLElement, visible: boolean): void {
  el.hidden = !visible;
}

let idCounter = 0;
/** A document-unique id for label/aria wiring. */
export function uid(prefix: string): string {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}
