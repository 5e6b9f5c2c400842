/**
 * Thread messages and file contents are data, not instructions: the model sees them inside clear
 * delimiters, the same way tool output is wrapped (src/modes/agent/observations.ts). Text that
 * contains the closing tag could end the block early, so it is neutralised.
 */

/** Wraps `text` in `<tag attr="…">…</tag>`; attribute values lose quotes and angle brackets. */
export function delimitData(tag: string, text: string, attributes: Record<string, string> = {}): string {
  const attrs = Object.entries(attributes)
    .map(([key, value]) => ` ${key}="${value.replace(/["<>\n\r]/g, ' ')}"`)
    .join('');
  const safe = text.replaceAll(`</${tag}>`, `<\\/${tag}>`);
  return `<${tag}${attrs}>\n${safe}\n</${tag}>`;
}
