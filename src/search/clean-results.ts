/**
 * Turns what a provider returned into what Scout shows and sends to models: valid http(s) URLs only,
 * one result per URL, plain-text titles, snippets of at most SNIPPET_MAX_CHARS.
 */
import type { Tokenizer } from 'htmlparser2';
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

/**
 * Characters of a title or snippet read at most: 20 times what is kept (SNIPPET_MAX_CHARS). A
 * provider that sends 64 KB of markup for one snippet is broken or hostile; the text it meant to
 * show is at the start.
 */
export const PLAIN_TEXT_INPUT_MAX = 4_096;

/**
 * Strips tags (Brave and DuckDuckGo highlight matches with <b>/<strong>), decodes entities, collapses
 * whitespace. Provider text is hostile input: a regex like `<[^>]*>` rescans to the end from every
 * unclosed `<` (64 KB of them took 13 s), so the text is cut to `maxInput` characters first and goes
 * through htmlparser2's Tokenizer, one linear pass with entity decoding, as pages do (html-to-text.ts).
 */
function toPlainText(
  html: string,
  TokenizerClass: typeof Tokenizer,
  maxInput = PLAIN_TEXT_INPUT_MAX,
): string {
  const input = html.length > maxInput ? html.slice(0, maxInput) : html;
  if (!/[<&]/.test(input)) return input.replace(/\s+/g, ' ').trim();
  const parts: string[] = [];
  // Text runs the tokenizer reports piecewise (every `<` of `<<<<` is one) are joined by range.
  let runStart = 0;
  let runEnd = 0;
  const flush = () => {
    if (runEnd > runStart) parts.push(input.slice(runStart, runEnd));
    runStart = runEnd = 0;
  };
  const tokenizer = new TokenizerClass(
    { xmlMode: false, decodeEntities: true },
    {
      ontext(start, end) {
        if (start !== runEnd) {
          flush();
          runStart = start;
        }
        runEnd = end;
      },
      ontextentity(codepoint) {
        flush();
        parts.push(String.fromCodePoint(codepoint));
      },
      onattribdata() {},
      onattribentity() {},
      onattribend() {},
      onattribname() {},
      oncdata() {},
      onclosetag() {},
      oncomment() {},
      ondeclaration() {},
      onend() {},
      onopentagend() {},
      onopentagname() {},
      onprocessinginstruction() {},
      onselfclosingtag() {},
    },
  );
  tokenizer.write(input);
  tokenizer.end();
  flush();
  return parts.join('').replace(/\s+/g, ' ').trim();
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

/** htmlparser2, loaded with the first search (a start that never searches does not load it). */
let tokenizerClass: typeof Tokenizer | undefined;

/** Cleans, de-duplicates by URL and caps the list. */
export async function cleanResults(raw: RawResult[], limit: number): Promise<SearchResult[]> {
  tokenizerClass ??= (await import('htmlparser2')).Tokenizer;
  const TokenizerClass = tokenizerClass;
  const seen = new Set<string>();
  const out: SearchResult[] = [];
  for (const item of raw) {
    const url = cleanUrl(item.url ?? undefined);
    if (!url || seen.has(url)) continue;
    seen.add(url);
    const title =
      truncateAtWord(toPlainText(item.title ?? '', TokenizerClass), TITLE_MAX_CHARS) || new URL(url).hostname;
    const snippet = truncateAtWord(toPlainText(item.snippet ?? '', TokenizerClass), SNIPPET_MAX_CHARS);
    out.push({ title, url, snippet });
    if (out.length >= limit) break;
  }
  return out;
}
