/**
 * Every word a page carries outside its scripts and styles, for checking the corpus itself (not a
 * reader): the text of all elements, plus the strings inside JSON-LD blocks (a page whose body is
 * drawn by script has its article only there). Also reports what the page's scripts contain, so the
 * corpus can prove each page plants the script canary where only a script holds it.
 */
import { Parser } from 'htmlparser2';

export interface PageTextParts {
  /** Text outside script, style and template elements, JSON-LD strings included. */
  text: string;
  /** Contents of script elements other than JSON-LD (executable code and JSON state blobs). */
  scripts: string[];
}

const HIDDEN = new Set(['script', 'style', 'template']);

export function pageTextParts(html: string): PageTextParts {
  const text: string[] = [];
  const scripts: string[] = [];
  let hiddenDepth = 0;
  let script: { ldJson: boolean; body: string } | null = null;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'script')
          script = { ldJson: (attrs.type ?? '').toLowerCase() === 'application/ld+json', body: '' };
        if (HIDDEN.has(name)) hiddenDepth++;
        text.push(' ');
      },
      ontext(data) {
        if (script) script.body += data;
        else if (hiddenDepth === 0) text.push(data);
      },
      onclosetag(name) {
        if (name === 'script' && script) {
          if (script.ldJson) text.push(' ', ...jsonStrings(script.body), ' ');
          else scripts.push(script.body);
          script = null;
        }
        if (HIDDEN.has(name)) hiddenDepth = Math.max(0, hiddenDepth - 1);
        text.push(' ');
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return { text: text.join(''), scripts };
}

/** All string values in a JSON document, each padded with spaces; nothing if it does not parse. */
function jsonStrings(json: string): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') out.push(` ${value} `);
    else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) walk(v);
  };
  try {
    walk(JSON.parse(json));
  } catch {
    // A malformed JSON-LD block contributes nothing, as it would for a reader.
  }
  return out;
}
