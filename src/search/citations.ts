/**
 * Citations: sources are numbered once per answer across all searches (SourceRegistry), and the
 * answer's `[n]` markers become Markdown links with a References section of the cited sources
 * (linkCitations). Adapters translate the Markdown into their platform's link syntax.
 */
import type { Locale } from '../i18n/locale.js';
import { type UserText, joinText, phrase } from '../i18n/phrase.js';
import type { Source } from '../render/events.js';
import type { SearchResult } from './types.js';

/** Same page, different spelling: host case, fragment and a trailing slash do not make a new source. */
function urlKey(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    let key = u.href;
    if (key.endsWith('/') && u.search === '') key = key.slice(0, -1);
    return key;
  } catch {
    return url.trim();
  }
}

/** Numbers sources for one answer; the same URL keeps its first number. */
export class SourceRegistry {
  private readonly byKey = new Map<string, Source>();
  private readonly list: Source[] = [];

  /** Registers results (new URLs get the next numbers) and returns them as numbered sources, in input order. */
  add(results: SearchResult[]): Source[] {
    const out: Source[] = [];
    const seen = new Set<number>();
    for (const r of results) {
      const key = urlKey(r.url);
      let source = this.byKey.get(key);
      if (!source) {
        source = { n: this.list.length + 1, title: r.title, url: r.url, snippet: r.snippet };
        this.byKey.set(key, source);
        this.list.push(source);
      }
      // A page read after it was found in a search knows its site and date; the number stays.
      if (r.site && !source.site) source.site = r.site;
      if (r.published && !source.published) source.published = r.published;
      if (!seen.has(source.n)) {
        seen.add(source.n);
        out.push(source);
      }
    }
    return out;
  }

  all(): Source[] {
    return [...this.list];
  }

  get size(): number {
    return this.list.length;
  }
}

/** Fenced code blocks and inline code spans: markers inside them are code, not citations. */
const CODE_RE = /(```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]+`)/g;
/**
 * `[1]`, `[1, 2]`, `[1,2]` with the spaces before it; not `[1](…)` (already a link) nor `[[1]]`.
 * `[1][2]` is two matches. A match starts only where a run of spaces does (`(?<![ \t])`): tried
 * from every space of a long run, the spaces alone made a scan quadratic in the run.
 */
const MARKER_RE = /(?<![ \t])([ \t]*)(?<!\[)\[(\d{1,3}(?:\s*[,，]\s*\d{1,3})*)\](?!\()/g;

/**
 * The References heading as history keeps it: what the model reads on later turns, in the turn's
 * language. The user sees the catalog's `answer.references` (the same words), said by the renderer.
 */
const REFERENCES_FOR_HISTORY: Readonly<Record<Locale, string>> = { en: 'References', zh: '参考文献' };

export interface LinkedAnswer {
  /** The Markdown history keeps (the model reads it on later turns), References heading included. */
  text: string;
  /** The same Markdown for the user (the `answer` event): its References heading is a phrase. */
  shown: UserText;
  cited: Source[];
}

/**
 * Links `[n]` markers to their sources and appends the References section (only cited sources, in
 * number order). Markers with no matching source are removed; with no sources, every marker goes.
 * `locale` is the turn's language, for the heading in the history's copy.
 */
export function linkCitations(answer: string, sources: Source[], locale: Locale): LinkedAnswer {
  const byNumber = new Map(sources.map((s) => [s.n, s]));
  const cited = new Map<number, Source>();
  const body = linkedBody(answer, byNumber, (s) => cited.set(s.n, s));

  const list = [...cited.values()].sort((a, b) => a.n - b.n);
  if (list.length === 0) return { text: body, shown: body, cited: [] };
  // An answer that ends inside a code block (cut off, or the model never closed it) is closed
  // first: References inside the block would show as plain code with no links.
  const open = openFence(body);
  const closed = open ? `${body}\n${open}` : body;
  const references = list
    .map((s) => `${s.n}. [${escapeTitle(s.title)}](${escapeUrl(s.url)})${aboutSource(s)}`)
    .join('\n');
  return {
    text: `${closed}\n\n**${REFERENCES_FOR_HISTORY[locale]}**\n${references}`,
    shown: joinText([`${closed}\n\n**`, phrase('answer.references'), `**\n${references}`]),
    cited: list,
  };
}

/**
 * The answer's text with its markers linked outside code, trailing whitespace trimmed: the final
 * text before its References (linkCitations; LiveCitations.flush for a stream that ended early).
 */
export function linkedBody(
  answer: string,
  byNumber: ReadonlyMap<number, Source>,
  cite?: (source: Source) => void,
): string {
  return answer
    .split(CODE_RE)
    .map((part, i) => (i % 2 === 1 ? part : linkMarkers(part, byNumber, cite)))
    .join('')
    .trimEnd();
}

/**
 * `prose` (text outside code) with its markers linked: each number with a source becomes
 * `[[n]](url)` (`cite` hears the source), a marker with none of its numbers known goes with the
 * spaces before it. The one rule for the final answer (linkCitations) and the streaming one
 * (live-citations.ts), so what streamed is what the final shows.
 */
export function linkMarkers(
  prose: string,
  byNumber: ReadonlyMap<number, Source>,
  cite?: (source: Source) => void,
): string {
  return prose.replace(MARKER_RE, (_whole, space: string, list: string) => {
    const numbers = list.split(/\s*[,，]\s*/).map(Number);
    const links = numbers
      .map((n) => byNumber.get(n))
      .filter((s): s is Source => s !== undefined)
      .map((s) => {
        cite?.(s);
        return `[[${s.n}]](${escapeUrl(s.url)})`;
      });
    return links.length > 0 ? space + links.join('') : '';
  });
}

/**
 * The code blocks and code spans of `text` as linkCitations splits them (markers inside are code),
 * in order; a block still open at the end of `text` runs to its end.
 */
export function codeSpans(text: string): IterableIterator<RegExpMatchArray> {
  return text.matchAll(CODE_RE);
}

/**
 * The fence that would close the code block `text` ends inside (``` or ~~~, as long as the one that
 * opened it), or undefined when every block is closed. CommonMark: a fence line has at most three
 * spaces before it, and only a fence of the same character, at least as long, closes it.
 */
export function openFence(text: string): string | undefined {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const fence = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (!fence) continue;
    if (open === undefined) open = fence;
    else if (fence[0] === open[0] && fence.length >= open.length && line.trim() === fence) open = undefined;
  }
  return open;
}

/** " — Site, 2026-03-14" after a reference, from what the page said about itself. */
function aboutSource(source: Source): string {
  const parts = [source.site, source.published].filter((p): p is string => Boolean(p?.trim()));
  return parts.length > 0 ? ` — ${parts.map((p) => p.replace(/[[\]()*_`<>]/g, '')).join(', ')}` : '';
}

/** Brackets in a title would end the link text early. */
function escapeTitle(title: string): string {
  return title.replace(/([[\]\\])/g, '\\$1');
}

/** Spaces and parentheses would end the link target early. */
function escapeUrl(url: string): string {
  return url.replace(/ /g, '%20').replace(/\(/g, '%28').replace(/\)/g, '%29');
}
