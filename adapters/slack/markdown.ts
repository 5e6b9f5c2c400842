/**
 * Text safety and conversion for Slack. Model output must never ping anyone (`<!channel>`, `@here`,
 * `<@U123>`) or break the message's formatting. The answer goes out as standard Markdown in
 * `markdown` blocks; step bodies go in `section` blocks, which speak Slack's mrkdwn dialect.
 */

// One defusing for every surface (src/render/mentions.ts); the Slack modules import it from here.
import { neutraliseMentions } from '../../src/render/mentions.js';

export { neutraliseMentions };

/** Escapes the three characters mrkdwn treats as control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A link in mrkdwn syntax; `|` and `>` inside the label would end it early. */
export function mrkdwnLink(url: string, label: string): string {
  const safeUrl = url.replace(/[<>|\s]/g, encodeURIComponent);
  const safeLabel = escapeMrkdwn(label.replace(/\|/g, '¦'));
  return `<${safeUrl}|${safeLabel}>`;
}

/**
 * Standard Markdown → Slack mrkdwn, for section/context text. Handles what model output and step
 * bodies contain: links, bold, italics, strike, inline code, fenced code, headings, lists. Code is
 * left verbatim (only escaped); everything else is escaped first, then marked up, so `<`, `>` and `&`
 * in the text can never open a Slack token.
 */
export function toMrkdwn(markdown: string): string {
  const out: string[] = [];
  const fences = neutraliseMentions(markdown).split(/(```[\s\S]*?```)/g);
  for (const part of fences) {
    if (part.startsWith('```') && part.endsWith('```') && part.length >= 6) {
      // Slack code blocks take no language tag: drop the first line's info string.
      const inner = part.slice(3, -3).replace(/^[\w+-]*\n/, '');
      out.push('```' + escapeMrkdwn(inner) + '```');
      continue;
    }
    out.push(convertInline(part));
  }
  return out.join('');
}

function convertInline(text: string): string {
  const codes: string[] = [];
  // Keep inline code out of the other rules.
  let s = text.replace(/`([^`\n]+)`/g, (_m, code: string) => {
    codes.push('`' + escapeMrkdwn(code) + '`');
    return `\u0000${codes.length - 1}\u0000`;
  });
  const links: string[] = [];
  s = s.replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g, (_m, label: string, url: string) => {
    links.push(mrkdwnLink(url, label));
    return `\u0001${links.length - 1}\u0001`;
  });
  s = escapeMrkdwn(s);
  s = s
    .replace(/^#{1,6}\s+(.+)$/gm, '\u0002$1\u0002')
    .replace(/\*\*(.+?)\*\*/g, '\u0002$1\u0002')
    .replace(/__(.+?)__/g, '\u0002$1\u0002')
    .replace(/(^|[^*\w])\*(?!\s)([^*\n]+?)\*(?!\w)/g, '$1_$2_')
    .replace(/~~(.+?)~~/g, '~$1~')
    .replace(/^(\s*)[-*+]\s+/gm, '$1• ')
    .replace(/\u0002/g, '*');
  s = s.replace(/\u0001(\d+)\u0001/g, (_m, i: string) => links[Number(i)] ?? '');
  return s.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => codes[Number(i)] ?? '');
}

/**
 * Slack's cuts are the renderer's own (a word boundary where one is close, never half an emoji: a
 * lone surrogate is not valid text), under the names the Slack builders use.
 */
export { tailForPreview as tail, truncateForPreview as truncate } from '../../src/render/step-text.js';
