/**
 * Untrusted Markdown (answers, step bodies, plans, replies: model, web page and user text) to safe
 * DOM. marked parses it (GFM tables), highlight.js colours code, and every piece of HTML goes through
 * DOMPurify before it reaches the document: nothing a model writes may run script, load from another
 * origin, or restyle the page. The CSP (script-src/style-src 'self') is the second wall, not the
 * first.
 *
 * No math rendering: KaTeX alone would take most of the page's 150 KB (gzip) budget, so TeX shows
 * as the model wrote it.
 */
import DOMPurify, { type Config } from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { Marked, type Tokens } from 'marked';

// A handful of common languages, not all 190: each costs bundle bytes. Aliases (js, ts, py, sh,
// html, yml, …) come with the language definitions.
for (const [name, lang] of Object.entries({
  bash,
  css,
  go,
  java,
  javascript,
  json,
  markdown,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
})) {
  hljs.registerLanguage(name, lang);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }: Tokens.Code): string {
      const language = (lang ?? '').trim().split(/\s+/)[0] ?? '';
      // Only a named, registered language is highlighted: auto-detection would run every grammar on
      // every frame of a streaming answer.
      const body =
        language && hljs.getLanguage(language)
          ? hljs.highlight(text, { language, ignoreIllegals: true }).value
          : escapeHtml(text);
      const cls = language ? ` class="hljs language-${escapeHtml(language)}"` : ' class="hljs"';
      return `<pre><code${cls}>${body}</code></pre>\n`;
    },
  },
});

const SAFE_LINK = /^(https?:|mailto:)/i;
// Inline images only from data: bitmaps (img-src 'self' data: in the CSP); an image from elsewhere
// would be a request to another origin (a tracking pixel in a model's answer), so it becomes a link.
const SAFE_IMAGE = /^data:image\/(png|jpe?g|gif|webp);/i;

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'A') {
    const href = node.getAttribute('href') ?? '';
    if (SAFE_LINK.test(href.trim())) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer nofollow');
    } else {
      // Relative links would point into the chat app itself, javascript:/data: would run or load.
      node.removeAttribute('href');
    }
  } else if (node.nodeName === 'IMG') {
    const src = node.getAttribute('src') ?? '';
    if (!SAFE_IMAGE.test(src.trim())) {
      const alt = node.getAttribute('alt') || src;
      const link = document.createElement('a');
      link.textContent = `🖼 ${alt}`;
      if (SAFE_LINK.test(src.trim())) {
        link.setAttribute('href', src.trim());
        link.setAttribute('target', '_blank');
        link.setAttribute('rel', 'noopener noreferrer nofollow');
      }
      node.replaceWith(link);
    }
  }
});

const PURIFY = {
  // HTML only: no SVG or MathML (their parsing quirks are where sanitiser bypasses live).
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    'style',
    'form',
    'iframe',
    'frame',
    'object',
    'embed',
    'input',
    'button',
    'textarea',
    'select',
    'option',
    'link',
    'meta',
    'base',
    'dialog',
    // Media would load from wherever the model says (the CSP's default-src 'none' is the backstop).
    'video',
    'audio',
    'source',
    'track',
    'picture',
  ],
  FORBID_ATTR: ['style', 'srcset', 'action', 'formaction', 'id', 'name'],
  ALLOW_DATA_ATTR: false,
  RETURN_DOM_FRAGMENT: true,
} satisfies Config;

/** Citation links (`[[3]](url)` in the final answer) become small chips; scrolling boxes get focus. */
function finish(root: DocumentFragment, sourceTitle: (n: number) => string | undefined): void {
  for (const a of root.querySelectorAll('a')) {
    const m = /^\[(\d+)\]$/.exec(a.textContent ?? '');
    if (!m) continue;
    a.classList.add('cite');
    const title = sourceTitle(Number(m[1]));
    if (title) a.setAttribute('title', title);
  }
  // Wide tables and long code lines scroll on their own instead of widening the page (360 px
  // screens); a scrolling box is focusable so the keyboard can scroll it too.
  for (const table of root.querySelectorAll('table')) {
    const wrap = document.createElement('div');
    wrap.className = 'table-wrap';
    wrap.tabIndex = 0;
    table.replaceWith(wrap);
    wrap.append(table);
  }
  for (const pre of root.querySelectorAll('pre')) pre.tabIndex = 0;
}

/** Block Markdown → sanitised nodes (the caller replaces its children with them). */
export function renderMarkdown(
  text: string,
  sourceTitle: (n: number) => string | undefined = () => undefined,
): DocumentFragment {
  const html = marked.parse(text, { async: false });
  const fragment = DOMPurify.sanitize(html, PURIFY);
  finish(fragment, sourceTitle);
  return fragment;
}

/** One line of Markdown (a step's title) → sanitised inline nodes. */
export function renderInline(text: string): DocumentFragment {
  const html = marked.parseInline(text, { async: false });
  return DOMPurify.sanitize(html, PURIFY);
}
