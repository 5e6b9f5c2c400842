/**
 * Thread messages and file contents are data, not instructions: the model sees them inside clear
 * delimiters, escaped exactly as tool output is (src/tools/untrusted-text.ts), so nothing a person
 * or a file writes can close the block and pass for Scout's own words.
 */
import { escapeDelimiters } from '../tools/untrusted-text.js';

/** Wraps `text` in `<tag attr="…">…</tag>`; attribute values lose quotes, angle brackets and newlines. */
export function delimitData(tag: string, text: string, attributes: Record<string, string> = {}): string {
  const attrs = Object.entries(attributes)
    .map(([key, value]) => ` ${key}="${escapeDelimiters(value).replace(/["<>\n\r]/g, ' ')}"`)
    .join('');
  return `<${tag}${attrs}>\n${escapeDelimiters(text)}\n</${tag}>`;
}
