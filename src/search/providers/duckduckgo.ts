/**
 * DuckDuckGo's HTML endpoint (no key): `GET {base}/html/?q=…`. Best effort: the markup is not an API
 * and the endpoint rate-limits quickly, so it is only used when SEARCH_PROVIDER=duckduckgo.
 */
import { SearchError } from '../../errors.js';
import { type RawResult, cleanResults, decodeEntities } from '../clean-results.js';
import { providerFetch, readText } from '../http.js';
import type { SearchProvider, SearchResult } from '../types.js';
import { withSlash } from './tavily.js';

/** DuckDuckGo serves a challenge page to clients without a browser-like agent. */
const USER_AGENT = 'Mozilla/5.0 (compatible; ScoutBot/0.1; +https://github.com/)';

const LINK_RE = /<a\b[^>]*class="[^"]*\bresult__a\b[^"]*"[^>]*>[\s\S]*?<\/a>/gi;
const SNIPPET_RE =
  /<(?:a|div|span)\b[^>]*class="[^"]*\bresult__snippet\b[^"]*"[^>]*>([\s\S]*?)<\/(?:a|div|span)>/i;

/** Result links go through `/l/?uddg=<encoded target>`; unwrap them. Ads (`/y.js`) are dropped. */
export function unwrapDuckDuckGoUrl(href: string): string | undefined {
  const decoded = decodeEntities(href);
  try {
    const url = new URL(decoded, 'https://duckduckgo.com');
    if (url.pathname.startsWith('/y.js')) return undefined;
    const target = url.searchParams.get('uddg');
    if (target) return target;
    return url.hostname.endsWith('duckduckgo.com') ? undefined : url.href;
  } catch {
    return undefined;
  }
}

/** Parses the result blocks of the HTML page; unknown markup gives an empty list, never a throw. */
export function parseDuckDuckGoHtml(html: string): RawResult[] {
  const out: RawResult[] = [];
  const links = [...html.matchAll(LINK_RE)];
  for (const [i, match] of links.entries()) {
    const anchor = match[0];
    const href = /href="([^"]*)"/i.exec(anchor)?.[1];
    const url = href ? unwrapDuckDuckGoUrl(href) : undefined;
    if (!url) continue;
    const title = anchor.replace(/^<a\b[^>]*>/i, '').replace(/<\/a>$/i, '');
    // The snippet sits between this link and the next one.
    const end = links[i + 1]?.index ?? html.length;
    const block = html.slice((match.index ?? 0) + anchor.length, end);
    const snippet = SNIPPET_RE.exec(block)?.[1] ?? '';
    out.push({ title, url, snippet });
  }
  return out;
}

export function createDuckDuckGoProvider(options: { baseUrl: string; timeoutMs: number }): SearchProvider {
  return {
    name: 'duckduckgo',
    async search(query, { limit, signal }): Promise<SearchResult[]> {
      const url = new URL('html/', withSlash(options.baseUrl));
      url.searchParams.set('q', query);
      const response = await providerFetch(
        url,
        { method: 'GET', headers: { 'user-agent': USER_AGENT, accept: 'text/html' } },
        { provider: 'duckduckgo', timeoutMs: options.timeoutMs, signal },
      );
      const html = await readText(response, 'duckduckgo');
      const raw = parseDuckDuckGoHtml(html);
      if (raw.length === 0 && /anomaly|captcha|challenge/i.test(html)) {
        throw new SearchError(
          'duckduckgo asked for a challenge (rate limited); try again later',
          'duckduckgo',
        );
      }
      return cleanResults(raw, limit);
    },
  };
}
