/**
 * The small parts of reading a page that fetch_url needs whether or not the page is HTML: its
 * error for markup too costly to convert, and truncation. Kept apart from html-to-text.ts so the
 * HTML parser (htmlparser2) loads only when a page is converted, not at start-up.
 */
export class PageTooComplexError extends Error {
  constructor(budgetMs: number) {
    super(`the page is too complex to read (its markup took more than ${budgetMs} ms to process)`);
  }
}

/** Cuts to `max` characters with a marker the model can see. */
export function truncateText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return { text: `${text.slice(0, max).trimEnd()}\n…[truncated]`, truncated: true };
}
