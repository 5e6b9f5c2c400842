/**
 * What a page says about itself: title, site name, byline and publication date, from its JSON-LD
 * (schema.org Article and kin), Open Graph and article meta tags, in that order of trust. The JSON-LD
 * `articleBody` is kept too: it is the reader's fallback when the visible page has no article (a body
 * drawn by script, a paywall teaser).
 */
import type { DomDocument, DomElement } from './dom.js';
import { closestFrom, isTag } from './dom-walk.js';

/** `closest('article, main')` without compiling the selector for each heading. */
const isArticleOrMain = isTag('ARTICLE', 'MAIN');

export interface PageMetadata {
  title?: string;
  site?: string;
  byline?: string;
  /** ISO date (`2026-03-14`), or date and time when the page gives one. */
  published?: string;
  /** schema.org `articleBody`, when the page carries one. */
  articleBody?: string;
  /** The page's summary of itself (og:description, description), whole: a lead where it shows it. */
  description?: string;
  /** `<base href>` or the page's URL: where relative links point. */
  baseUrl: string;
  /** The page calls itself an article (og:type, schema.org type, a publication date). */
  declaresArticle: boolean;
}

/** One JSON-LD block bigger than this is not metadata: not parsed. */
const MAX_JSON_LD_CHARS = 1_000_000;
const MAX_FIELD_CHARS = 300;
/** A standfirst is a paragraph at most. */
const MAX_DESCRIPTION_CHARS = 1_000;
const ARTICLE_TYPES =
  /^(Article|NewsArticle|BlogPosting|Report|ScholarlyArticle|TechArticle|AnalysisNewsArticle|ReportageNewsArticle|OpinionNewsArticle|LiveBlogPosting|SocialMediaPosting|DiscussionForumPosting|WebPage|Review|Recipe|HowTo|QAPage|Question)$/;

/**
 * `elements`: the document's elements in document order (`querySelectorAll('*')`), when the caller
 * has them: every lookup here filters that one walk (a selector walked the whole page once each).
 */
export function readMetadata(
  document: DomDocument,
  pageUrl: string,
  elements: DomElement[] = Array.from(document.querySelectorAll('*')),
): PageMetadata {
  const metas = new Map<string, string>();
  const scripts: DomElement[] = [];
  let titleTag: DomElement | undefined;
  let baseTag: DomElement | undefined;
  let heading: DomElement | undefined;
  let headingInArticle = false;
  // meta[content], script[type="application/ld+json"], title, base[href], h1
  for (const tag of elements) {
    const name = tag.tagName.toUpperCase();
    if (
      !(
        (name === 'META' && tag.getAttribute('content') !== null) ||
        (name === 'SCRIPT' && isJsonLd(tag)) ||
        name === 'TITLE' ||
        (name === 'BASE' && tag.getAttribute('href') !== null) ||
        name === 'H1'
      )
    )
      continue;
    switch (name) {
      case 'META': {
        const key = tag.getAttribute('property') ?? tag.getAttribute('name') ?? tag.getAttribute('itemprop');
        const content = tag.getAttribute('content');
        if (key && content && !metas.has(key.toLowerCase())) metas.set(key.toLowerCase(), content);
        break;
      }
      case 'SCRIPT':
        scripts.push(tag);
        break;
      case 'TITLE':
        titleTag ??= tag;
        break;
      case 'BASE':
        baseTag ??= tag;
        break;
      default:
        // The article's own h1 over the site's logo heading.
        if (!headingInArticle && closestFrom(tag, isArticleOrMain)) {
          heading = tag;
          headingInArticle = true;
        } else heading ??= tag;
    }
  }
  const meta = (key: string) => clean(metas.get(key));
  const ld = jsonLdArticle(scripts);
  const baseHref = baseTag?.getAttribute('href');
  let baseUrl = pageUrl;
  try {
    if (baseHref) baseUrl = new URL(baseHref, pageUrl).href;
  } catch {
    // An unusable <base>: links resolve against the page itself.
  }
  const title =
    clean(text(ld?.headline)) || meta('og:title') || meta('twitter:title') || clean(titleTag?.textContent);
  const summary = (metas.get('og:description') ?? metas.get('description') ?? '').replace(/\s+/g, ' ').trim();
  // Longer is the body's opening copied in whole (Shopify's blogs), not a summary of it.
  const description = summary.length <= MAX_DESCRIPTION_CHARS ? summary : '';
  const site =
    meta('og:site_name') ||
    clean(text(objectName(ld?.publisher))) ||
    meta('application-name') ||
    meta('apple-mobile-web-app-title');
  const byline =
    clean(authorNames(ld?.author)) ||
    meta('author') ||
    meta('article:author')?.replace(/^https?:\/\/\S+$/, '') ||
    meta('byl') ||
    // [rel="author"], [itemprop="author"] [itemprop="name"]
    clean(
      elements.find(
        (e) =>
          e.getAttribute('rel')?.toLowerCase() === 'author' ||
          (e.getAttribute('itemprop') === 'name' &&
            hasAncestor(e, (a) => a.getAttribute('itemprop') === 'author')),
      )?.textContent,
    );
  const published = isoDate(
    text(ld?.datePublished) ||
      meta('article:published_time') ||
      meta('date') ||
      meta('pubdate') ||
      meta('publish-date') ||
      meta('datepublished') ||
      elements.find((e) => e.getAttribute('itemprop') === 'datePublished')?.getAttribute('datetime') ||
      // article time[datetime], time[pubdate]
      elements
        .find(
          (e) =>
            e.tagName.toUpperCase() === 'TIME' &&
            (e.getAttribute('pubdate') !== null ||
              (e.getAttribute('datetime') !== null &&
                hasAncestor(e, (a) => a.tagName.toUpperCase() === 'ARTICLE'))),
        )
        ?.getAttribute('datetime') ||
      text(ld?.dateCreated),
  );
  const shortTitle =
    headingTitle(title, clean(heading?.textContent)) ??
    (title && site ? withoutSiteSuffix(title, site) : title);
  const articleBody = typeof ld?.articleBody === 'string' ? ld.articleBody.trim() : undefined;
  const ldTypes = [ld?.['@type']].flat().map(String);
  const declaresArticle =
    /article/i.test(meta('og:type') ?? '') ||
    ldTypes.some((t) => /Article|BlogPosting|Report/.test(t)) ||
    published !== undefined;
  return {
    declaresArticle,
    ...(shortTitle ? { title: shortTitle.slice(0, MAX_FIELD_CHARS) } : {}),
    ...(site ? { site: site.slice(0, 100) } : {}),
    ...(byline ? { byline: byline.slice(0, 200) } : {}),
    ...(published ? { published } : {}),
    ...(articleBody ? { articleBody } : {}),
    ...(description ? { description } : {}),
    baseUrl,
  };
}

type LdNode = Record<string, unknown>;

/** `script[type="application/ld+json"]` (the type compared as CSS does in HTML: case-insensitively). */
export function isJsonLd(element: DomElement): boolean {
  return (
    element.tagName.toUpperCase() === 'SCRIPT' &&
    element.getAttribute('type')?.toLowerCase() === 'application/ld+json'
  );
}

/** An element above `element` passes `test` (CSS's descendant combinator). */
export function hasAncestor(element: DomElement, test: (ancestor: DomElement) => boolean): boolean {
  for (let node = element.parentNode as DomElement | null; node; node = node.parentNode as DomElement | null)
    if (node.nodeType === 1 && test(node)) return true;
  return false;
}

/** The page's main schema.org node: an Article-like one first, else the first typed node. */
function jsonLdArticle(scripts: DomElement[]): LdNode | undefined {
  const nodes: LdNode[] = [];
  for (const script of scripts) {
    const source = script.textContent ?? '';
    if (source.length > MAX_JSON_LD_CHARS) continue;
    try {
      collect(JSON.parse(source.replace(/^\s*<!--|-->\s*$/g, '')), nodes, 0);
    } catch {
      // Broken JSON-LD is common; the page's other metadata still counts.
    }
  }
  const typed = (node: LdNode) => [node['@type']].flat().map(String);
  return (
    nodes.find((n) => typed(n).some((t) => ARTICLE_TYPES.test(t) && t !== 'WebPage') && n.articleBody) ??
    nodes.find((n) => typed(n).some((t) => ARTICLE_TYPES.test(t) && t !== 'WebPage')) ??
    nodes.find((n) => typed(n).includes('WebPage'))
  );
}

function collect(value: unknown, out: LdNode[], depth: number): void {
  if (depth > 4 || out.length > 200 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) collect(item, out, depth + 1);
    return;
  }
  const node = value as LdNode;
  if (node['@type']) out.push(node);
  if (node['@graph']) collect(node['@graph'], out, depth + 1);
  if (node.mainEntity) collect(node.mainEntity, out, depth + 1);
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return text(value[0]);
  return undefined;
}

function objectName(value: unknown): unknown {
  if (Array.isArray(value)) return objectName(value[0]);
  if (value && typeof value === 'object') return (value as LdNode).name;
  return value;
}

function authorNames(value: unknown): string | undefined {
  const names = [value]
    .flat()
    .map((a) => text(objectName(a)))
    .filter((n): n is string => typeof n === 'string' && n.trim() !== '' && !/^https?:\/\//.test(n));
  return names.length > 0 ? names.slice(0, 5).join(', ') : undefined;
}

/** `2026-03-14T09:30:00Z` → `2026-03-14`; anything Date cannot read is left out. */
export function isoDate(value: string | null | undefined): string | undefined {
  const raw = value?.trim();
  if (!raw) return undefined;
  const day = /^(\d{4}-\d{2}-\d{2})/.exec(raw)?.[1];
  if (day) return day;
  const parsed = Date.parse(raw);
  return Number.isNaN(parsed) ? undefined : new Date(parsed).toISOString().slice(0, 10);
}

const SEPARATORS = [' | ', ' - ', ' – ', ' — ', ' :: ', ' · ', ' » '];

/**
 * "Receiving webhooks | Parcelpost Docs" with an `<h1>` "Receiving webhooks": the heading is the
 * title, the rest is the site's suffix (or prefix) however it is spelt.
 */
function headingTitle(title: string | undefined, heading: string | undefined): string | undefined {
  if (!title || !heading || heading.length < 3 || heading === title) return undefined;
  for (const separator of SEPARATORS) {
    if (title.startsWith(`${heading}${separator}`) || title.endsWith(`${separator}${heading}`))
      return heading;
  }
  return undefined;
}

/** "Story title | The Site" → "Story title": the site is reported on its own. */
function withoutSiteSuffix(title: string, site: string): string {
  const lower = title.toLowerCase();
  const name = site.toLowerCase();
  for (const separator of SEPARATORS) {
    const suffix = `${separator}${name}`;
    if (lower.endsWith(suffix) && title.length > suffix.length) return title.slice(0, -suffix.length).trim();
  }
  return title;
}

function clean(value: string | null | undefined): string | undefined {
  const collapsed = value?.replace(/\s+/g, ' ').trim();
  return collapsed || undefined;
}
