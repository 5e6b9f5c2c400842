/**
 * `<![CDATA[` in a page's HTML, outside SVG and MathML, is not a CDATA section: browsers read it as a
 * bogus comment that ends at the next `>`. The HTML parser under linkedom (htmlparser2) reads it as a
 * section that runs to the next `]]>` — which a page that never closes it (forum software writes a
 * bare `<![CDATA[` after `<body>`) does not have, so the whole page vanished into one comment: 2,454
 * words of a forum thread read as nothing. Markers in scripts and styles (`//<![CDATA[`) are their
 * text and stay; one in the page's markup is removed the way a browser removes it. Linear: one pass
 * over the markers and the tags that open and close raw text.
 */

/** A CDATA marker, or a tag that opens or closes the raw text of a script or a style. */
const MARKER = /<!\[CDATA\[|<(\/?)(script|style)\b/gi;

/** The rest of a bogus comment: up to and with the next `>`, if no `<` comes first. */
const BOGUS_REST = /[^<>]*>/y;

export function withoutHtmlCdata(html: string): string {
  if (!html.includes('<![CDATA[')) return html;
  let out = '';
  let from = 0;
  let rawText: string | undefined;
  for (const match of html.matchAll(MARKER)) {
    const at = match.index;
    if (at < from) continue;
    const tag = match[2]?.toLowerCase();
    if (tag) {
      if (match[1] && tag === rawText) rawText = undefined;
      else if (!match[1] && rawText === undefined) rawText = tag;
      continue;
    }
    if (rawText !== undefined) continue;
    // A browser's bogus comment runs to the next `>`; where a tag starts first, only the marker goes
    // (dropping the tag with it would lose an element a browser keeps as text-less markup anyway).
    // (Scanned only up to the next `<`, so no stretch of the page is scanned twice.)
    BOGUS_REST.lastIndex = at + 9;
    const end = BOGUS_REST.test(html) ? BOGUS_REST.lastIndex : at + 9;
    out += html.slice(from, at);
    from = end;
  }
  return out + html.slice(from);
}
