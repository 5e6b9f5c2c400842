/**
 * The words of the reader's Markdown without its syntax, so the shingle metric scores what the page
 * says and not how the reader marked it up: `[text](url)` counts as `text` (the URL is not article
 * text), `# `, `> `, list bullets and numbers, table pipes and `---|---` rows, code fences and emphasis
 * markers go. Images (`![alt](src)`) go entirely: alt text is not part of the expected article text.
 * Code (fenced blocks and `inline spans`) is kept verbatim, so `__init__` or `a * b` survive.
 */

const FENCE_RE = /^\s*(`{3,}|~{3,})/;
const HEADING_RE = /^\s{0,3}#{1,6}(?:\s+|$)/;
const SETEXT_RE = /^\s{0,3}(?:=+|-+)\s*$/;
const RULE_RE = /^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$/;
const QUOTE_RE = /^\s{0,3}(?:>\s?)+/;
const BULLET_RE = /^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/;
const TABLE_DIVIDER_RE = /^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const LINK_DEFINITION_RE = /^\s{0,3}\[[^\]]+\]:\s+\S+/;

/** Markdown as plain text lines (blank lines kept between blocks). */
export function markdownToPlain(markdown: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const raw of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const fenceMatch = FENCE_RE.exec(raw);
    if (fence !== null) {
      // Inside a code block: keep the line as written until the matching fence closes it.
      if (
        fenceMatch?.[1] !== undefined &&
        fenceMatch[1][0] === fence[0] &&
        fenceMatch[1].length >= fence.length
      ) {
        fence = null;
        out.push('');
      } else out.push(raw);
      continue;
    }
    if (fenceMatch?.[1] !== undefined) {
      fence = fenceMatch[1];
      out.push('');
      continue;
    }
    out.push(plainLine(raw));
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function plainLine(raw: string): string {
  if (RULE_RE.test(raw) || SETEXT_RE.test(raw) || TABLE_DIVIDER_RE.test(raw) || LINK_DEFINITION_RE.test(raw))
    return '';
  let line = raw.replace(QUOTE_RE, '');
  if (HEADING_RE.test(line)) {
    // A heading's text is text ("## 1. Eat less" is not a list item); a closing run of #s goes.
    line = line.replace(HEADING_RE, '').replace(/\s+#+\s*$/, '');
  } else line = line.replace(BULLET_RE, '');
  if (/^\s*\|/.test(line) || /\|\s*$/.test(line)) {
    // A table row: one cell after another, separated by spaces.
    line = line
      .replace(/^\s*\|/, '')
      .replace(/\|\s*$/, '')
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim())
      .join('  ');
  }
  return inline(line).trimEnd();
}

/** Inline syntax: code spans are kept verbatim, everything else loses its markers. */
function inline(line: string): string {
  const parts = line.split(/(`+)([^`]|[^`].*?[^`])\1/);
  // split with two groups yields [text, ticks, code, text, ticks, code, …, text].
  let result = '';
  for (let i = 0; i < parts.length; i += 3) {
    result += stripInline(parts[i] ?? '');
    const code = parts[i + 2];
    if (code !== undefined) result += code.trim() === '' ? code : code.replace(/^ (.*) $/, '$1');
  }
  return result;
}

/** Escaped Markdown punctuation is parked in the Private Use Area while markers are stripped. */
const PARK = 0xe000;

function stripInline(text: string): string {
  return (
    text
      .replace(/\\([\\`*_{}[\]()#+\-.!|>~<])/g, (_m, ch: string) =>
        String.fromCharCode(PARK + ch.charCodeAt(0)),
      )
      // Images first (their alt text is not article text), then links keep their text.
      .replace(/!\[[^\]]*\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)/g, '')
      .replace(/\[((?:[^\]\\]|\\.)*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)/g, '$1')
      .replace(/\[((?:[^\]\\]|\\.)*)\]\[[^\]]*\]/g, '$1')
      .replace(/<(https?:\/\/[^>\s]+)>/g, '$1')
      .replace(/<br\s*\/?>/gi, ' ')
      // Emphasis and strikethrough markers in pairs, as CommonMark reads them: a lone `*` is the
      // page's text ("inter* Personen", a footnote's "*Mit der Befragung"), and so is one inside a
      // word (snake_case, 2*3).
      .replace(/(?<![\p{L}\p{N}])(\*{1,3}|~~)(?=\S)(.*?\S)\1(?![\p{L}\p{N}])/gu, '$2')
      .replace(/(?<![\p{L}\p{N}_])(_{1,3})(?=\S)(.*?\S)\1(?![\p{L}\p{N}_])/gu, '$2')
      .replace(/[\ue000-\ue07f]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) - PARK))
  );
}
