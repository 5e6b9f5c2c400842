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
  /** Other titles the page itself gives (its og:title and <title> disagree), each as right as `title`. */
  titleAlternatives?: string[];
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

/** The manifest's web pages: every entry but the PDFs. */
export function webPageEntries(): PageEntry[] {
  return loadManifest().filter((page) => !page.contentType.toLowerCase().startsWith('application/pdf'));
}

export function pageBytes(entry: PageEntry): Uint8Array {
  return new Uint8Array(readFileSync(path.join(PAGES_DIR, entry.file)));
}

export function expectedText(entry: PageEntry): string {
  return readFileSync(path.join(PAGES_DIR, `${entry.name}.expected.txt`), 'utf8');
}

/**
 * WHATWG index-windows-1252 for bytes 0x80-0x9F (every other byte is its own code point). Node's own
 * TextDecoder decodes windows-1252 as ISO-8859-1 since 20.18.3 / 22.13 (nodejs/node#60888), turning
 * € „ “ ” – ’ into C1 control characters, so the corpus decodes these pages itself.
 */
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d,
  0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a,
  0x153, 0x9d, 0x17e, 0x178,
];
/** Labels the Encoding Standard maps to windows-1252. */
const WINDOWS_1252_LABELS = new Set(['windows-1252', 'iso-8859-1', 'latin1', 'us-ascii', 'ascii', 'cp1252']);

/** A page's text, decoded from the charset its manifest entry names (UTF-8 when it names none). */
export function decodePage(entry: PageEntry, bytes: Uint8Array = pageBytes(entry)): string {
  const charset = (entry.charset ?? 'utf-8').toLowerCase();
  if (WINDOWS_1252_LABELS.has(charset))
    return Array.from(bytes, (b) =>
      String.fromCodePoint(b >= 0x80 && b <= 0x9f ? WINDOWS_1252_HIGH[b - 0x80]! : b),
    ).join('');
  return new TextDecoder(charset).decode(bytes);
}

/** The text that planted `<script>`s carry on every HTML page; it must never reach the reader's output. */
export const SCRIPT_CANARY = 'scriptcanary';
