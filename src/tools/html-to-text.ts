/** Readable text from an HTML page, best effort and dependency-free (fetch_url feeds it to the model). */
import { decodeEntities } from '../search/clean-results.js';

/** Elements whose content is never readable text. */
const DROP_ELEMENTS = [
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'iframe',
  'head',
  'canvas',
  'select',
];
/** Elements that start a new line when their markup is removed. */
const BLOCK_TAGS =
  /<\/?(?:p|div|br|hr|li|ul|ol|h[1-6]|tr|table|section|article|header|footer|nav|aside|main|blockquote|pre|dd|dt|figcaption)\b[^>]*>/gi;

export function extractTitle(html: string): string | undefined {
  const match = /<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  const title = match
    ? decodeEntities(match[1] ?? '')
        .replace(/\s+/g, ' ')
        .trim()
    : '';
  return title || undefined;
}

export function htmlToText(html: string): string {
  let text = html.replace(/<!--[\s\S]*?-->/g, ' ');
  for (const tag of DROP_ELEMENTS) {
    text = text.replace(new RegExp(`<${tag}\\b[\\s\\S]*?<\\/${tag}\\s*>`, 'gi'), ' ');
  }
  text = text
    .replace(BLOCK_TAGS, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/[ \t\f\v\r\u00a0]+/g, ' ');
  return (
    decodeEntities(text)
      .split('\n')
      // Inline tags became spaces; "<b>bold</b>." should still read "bold.".
      .map((line) =>
        line
          .replace(/\s+/g, ' ')
          .replace(/ ([.,;:!?)\]])/g, '$1')
          .trim(),
      )
      .filter((line, i, lines) => line !== '' || (i > 0 && lines[i - 1] !== ''))
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}

/** Cuts to `max` characters with a marker the model can see. */
export function truncateText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return { text: `${text.slice(0, max).trimEnd()}\n…[truncated]`, truncated: true };
}
