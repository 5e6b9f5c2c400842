/**
 * The page corpus under `test/fixtures/pages/`: its manifest, and each page's bytes and expected text.
 * Shared by the corpus score test and the corpus self-check.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PAGES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/pages');

/** One page of the corpus, as `pages.json` describes it. */
export interface PageEntry {
  /** Short unique name; `NAME.expected.txt` holds the expected article text. */
  name: string;
  /** The page's file in `test/fixtures/pages/` (raw bytes as a server sends them). */
  file: string;
  /** Where the page claims to live (links in it are relative to this). */
  url: string;
  /** The Content-Type header a server would send with it, with or without a charset. */
  contentType: string;
  /** What kind of page it is (news, docs, forum, …). */
  shape: string;
  /** The article's title, without the site name. */
  title: string;
  site?: string;
  byline?: string;
  /** Publication date as the page gives it (ISO 8601, date or date-time). */
  published?: string;
  /** For long articles: a sentence from the last third of the article, for focus tests. */
  lastThirdSentence?: string;
  /** For pages not in UTF-8: the charset of their bytes, and a non-ASCII phrase that must survive decoding. */
  charset?: string;
  nonAsciiPhrase?: string;
}

export function loadManifest(): PageEntry[] {
  return JSON.parse(readFileSync(path.join(PAGES_DIR, 'pages.json'), 'utf8')) as PageEntry[];
}

export function pageBytes(entry: PageEntry): Uint8Array {
  return new Uint8Array(readFileSync(path.join(PAGES_DIR, entry.file)));
}

export function expectedText(entry: PageEntry): string {
  return readFileSync(path.join(PAGES_DIR, `${entry.name}.expected.txt`), 'utf8');
}

/** The text that planted `<script>`s carry on every HTML page; it must never reach the reader's output. */
export const SCRIPT_CANARY = 'scriptcanary';
