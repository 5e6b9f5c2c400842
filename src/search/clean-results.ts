/**
 * Turns what a provider returned into what Scout shows and sends to models: valid http(s) URLs only,
 * one result per URL, plain-text titles, snippets of at most SNIPPET_MAX_CHARS.
 */
import type { SearchResult } from './types.js';

/** SPEC §4: snippets of at most 200 characters keep the tool result compact for the model. */
export const SNIPPET_MAX_CHARS = 200;
/** Titles are one line in the UI; anything longer is a provider glitch. */
const TITLE_MAX_CHARS = 200;

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  laquo: '«',
  raquo: '»',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
};

/** Decodes the HTML entities providers leave in titles and snippets (numeric and the common named ones). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code =
        body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

/** Strips tags (Brave and DuckDuckGo highlight matches with <b>/<strong>), decodes entities, collapses whitespace. */
export function toPlainText(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
}

/** Cuts at a word boundary so the result, "…" included, has at most `max` characters. */
export function truncateAtWord(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max - 1).join('');
  const lastSpace = cut.lastIndexOf(' ');
  // A boundary too far back would throw away most of the snippet; cut mid-word instead.
  const head = lastSpace >= cut.length * 0.6 ? cut.slice(0, lastSpace) : cut;
  return `${head.replace(/[\s,;:.–—-]+$/u, '')}…`;
}

/** Lowercase, collapsed whitespace, trimmed: "  Rust  Async " and "rust async" share a cache entry. */
export function normalizeQuery(query: string): string {
  return query.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The URL as a clean absolute http(s) string, or undefined when it is not one. */
export function cleanUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  try {
    const url = new URL(raw.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

/** Raw fields as providers name them; missing ones become empty. */
export interface RawResult {
  title?: string | null;
  url?: string | null;
  snippet?: string | null;
}

/** Cleans, de-duplicates by URL and caps the list. */
export function cleanResults(raw: RawResult[], limit: number): SearchResult[] {
  const seen = new Set<string>();
  const out: SearchResult[] = [];
  for (const item of raw) {
    const url = cleanUrl(item.url ?? undefined);
    if (!url || seen.has(url)) continue;
    seen.add(url);
    const title = truncateAtWord(toPlainText(item.title ?? ''), TITLE_MAX_CHARS) || new URL(url).hostname;
    const snippet = truncateAtWord(toPlainText(item.snippet ?? ''), SNIPPET_MAX_CHARS);
    out.push({ title, url, snippet });
    if (out.length >= limit) break;
  }
  return out;
}
