import { type DomNode, ELEMENT, firstElement, MAX_DEPTH, TEXT } from './dom-node.js';

/** Fenced code with the language a highlighter's class names (`language-ts`, `lang-py`). */
export function codeBlock(pre: DomNode): string {
  const code = firstElement(pre, 'CODE');
  const classes = `${pre.getAttribute?.('class') ?? ''} ${code?.getAttribute?.('class') ?? ''}`;
  const language = /(?:^|\s)(?:language|lang)-([\w+#-]{1,20})/.exec(classes)?.[1] ?? '';
  const text = preText(pre)
    .replace(/\r\n?/g, '\n')
    .replace(/^\n+|\s+$/g, '');
  const fence = text.includes('```') ? '~~~~' : '```';
  return `${fence}${language}\n${text}\n${fence}`;
}

/** A `<pre>`'s text with its `<br>`s as line breaks (highlighters write lines as spans and breaks). */
function preText(node: DomNode, depth = 0): string {
  if (node.nodeType === TEXT) return node.textContent ?? '';
  if (node.nodeType !== ELEMENT) return '';
  const name = node.nodeName.toUpperCase();
  if (name === 'BR') return '\n';
  if (depth > MAX_DEPTH) return node.textContent ?? '';
  let text = '';
  const children = node.childNodes;
  for (let i = 0; i < children.length; i++) text += preText(children[i] as DomNode, depth + 1);
  // Some highlighters give each line its own block element instead of a break.
  return (name === 'DIV' || name === 'P') && !text.endsWith('\n') ? `${text}\n` : text;
}
