/**
 * FastReadability answers as Mozilla Readability does: the same article (markup, text, title,
 * byline) from the same page, on the fixture corpus and on pages made to reach each helper it
 * replaces (hidden elements, bylines, empty wrappers, divs with and without blocks, retries).
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { describe, expect, it, vi } from 'vitest';
import { extractArticle } from '../../src/reader/extract-article.js';
import { FastReadability } from '../../src/reader/fast-readability.js';
import { isSpace, spacedTextLength } from '../../src/reader/spaced-length.js';
import { decodePage, webPageEntries } from './page-fixtures.js';

type Options = ConstructorParameters<typeof Readability>[1];

function both(html: string, options: Options = {}) {
  const read = (Reader: typeof Readability | typeof FastReadability) => {
    const { document } = parseHTML(html);
    const result = new Reader(document as never, options).parse();
    return result && { ...result, body: String(document.body?.innerHTML ?? '') };
  };
  return { plain: read(Readability), fast: read(FastReadability) };
}

/** Readability and FastReadability (on empty documents) with the helpers a test calls on other elements. */
function helpers<T>(): { plain: T; fast: T } {
  const empty = () => parseHTML('<html><body></body></html>').document as never;
  return {
    plain: new Readability(empty()) as unknown as T,
    fast: new FastReadability(empty()) as unknown as T,
  };
}

/** Every element of the page made for a test and of the fixture corpus's web pages. */
function everyElement(made: string): unknown[] {
  const pages = webPageEntries().map((page) => decodePage(page));
  return [made, ...pages].flatMap((html) => Array.from(parseHTML(html).document.querySelectorAll('*')));
}

const SPACES = ' \t\n\u00a0\u2003\u3000\ufeff\u200b\u0085';

const para = (words: string) =>
  `<p>${words}, and more words, with commas, to score, as prose does, ${'word '.repeat(30)}</p>`;

describe('FastReadability', () => {
  it('reads every page of the fixture corpus as Readability does', () => {
    const pages = webPageEntries();
    expect(pages.length).toBeGreaterThan(20);
    for (const page of pages) {
      const html = decodePage(page);
      for (const options of [{}, { charThreshold: 400, keepClasses: true }, { charThreshold: 100_000 }]) {
        const { plain, fast } = both(html, options);
        expect(fast, `${page.file} ${JSON.stringify(options)}`).toEqual(plain);
      }
    }
  });

  it("leaves links to Scout's own resolution and writes the same Markdown as with Readability's", () => {
    const article = (links: string) =>
      `<article><h1>Links</h1>${para('first')}<p>See <a href="/docs/a b">the docs</a>, <a href="HTTPS://Example.COM">the site</a>, <a href="#part-2">part two</a>, <a href="javascript:void(0)">a script</a>, <a href="javascript:go()"><b>bold</b> script</a> and <a href="?page=2">page two</a>. ${links}</p>${para('second')}${para('third')}</article>`;
    const pages = [
      `<html><head><title>Links</title></head><body>${article('')}</body></html>`,
      `<html><head><base href="https://cdn.example/mirror/"><title>Links</title></head><body>${article('')}</body></html>`,
      `<html><head><base href="/relative/"><title>Links</title></head><body>${article('<a href="#top">top</a>')}</body></html>`,
    ];
    const markdown = () =>
      pages.map((html) => extractArticle(html, 'https://news.example/story').blocks.join('\n\n'));
    const ours = markdown();
    const own = vi
      .spyOn(
        FastReadability.prototype as unknown as { _fixRelativeUris(node: unknown): void },
        '_fixRelativeUris',
      )
      .mockImplementation(function (this: unknown, node: unknown) {
        (Readability.prototype as unknown as { _fixRelativeUris(node: unknown): void })._fixRelativeUris.call(
          this,
          node,
        );
      });
    let readabilitys: string[];
    try {
      readabilitys = markdown();
      expect(own).toHaveBeenCalledTimes(pages.length);
    } finally {
      own.mockRestore();
    }
    expect(ours).toEqual(readabilitys);
    expect(ours[1]).toContain('(https://cdn.example/mirror/#part-2)');
    expect(ours[0]).toContain('a script');
    expect(ours[0]).not.toContain('javascript:');
  });

  it('removes the same placeholder images and unwraps the same <noscript> images', () => {
    const figure = (img: string) => `<p>${'words of the story, '.repeat(12)}${img}</p>`;
    const images = [
      '<img class="lazy" alt="a placeholder">',
      '<img data-src="/a.jpg">',
      '<img alt="photo.JPG">',
      '<img srcset="/b.webp 2x" width="10">',
      '<img data-lazy="/c.png">',
      '<img>',
    ];
    for (const noscript of ['', '<img data-x="y"><noscript><img src="/real.jpg" alt="real"></noscript>']) {
      const html = `<html><head><title>Images</title></head><body><article>${images.map(figure).join('')}${figure(noscript)}</article></body></html>`;
      const { plain, fast } = both(html);
      expect(fast).toEqual(plain);
      expect(fast?.content).not.toContain('a placeholder');
      expect(fast?.content).toContain('photo.JPG');
    }
  });

  it('keeps and drops the same hidden, empty and byline elements', () => {
    const html = `<html><head><title>A title here</title></head><body>
      <div class="byline">By Ann Author</div>
      <div style="display: none">${para('hidden by style')}</div>
      <div style="color: red">${para('styled but shown')}</div>
      <div hidden>${para('hidden by attribute')}</div>
      <div aria-hidden="true">${para('hidden from readers')}</div>
      <div aria-hidden="true" class="fallback-image">${para('a fallback image')}</div>
      <div aria-hidden="false">${para('shown to readers')}</div>
      <section> <br> <hr> </section><div><span> </span></div><h2>  </h2>
      <article><div>${para('first')}<div>inline <b>text</b> only</div><div><p>one paragraph</p></div>
      <div>${para('second')}<ul><li>a list item in a div</li></ul></div>${para('third')}</div></article>
      </body></html>`;
    for (const options of [{}, { charThreshold: 100_000 }]) {
      const { plain, fast } = both(html, options);
      expect(fast).toEqual(plain);
      expect(fast?.textContent).toContain('styled but shown');
      expect(fast?.textContent).not.toContain('hidden by style');
    }
  });

  it("retries its search on a copy of the page's nodes, not by parsing the page's HTML again", () => {
    // Too little text for the threshold: Readability searches, restores the page and searches again
    // with each of its three flags off, then keeps the longest attempt.
    const html = `<html><body><div class="sidebar">${para('aside')}</div>
      <div class="content">${para('first')}${para('second')}<p>Short, <b>bold</b> &amp; plain.</p></div></body></html>`;
    const { document } = parseHTML(html);
    let owner: object | null = document.body as object;
    while (owner && !Object.getOwnPropertyDescriptor(owner, 'innerHTML'))
      owner = Object.getPrototypeOf(owner);
    const parsed = vi.spyOn(owner as { innerHTML: string }, 'innerHTML', 'set');
    const serialised = vi.spyOn(owner as { innerHTML: string }, 'innerHTML', 'get');
    try {
      const fast = new FastReadability(document as never, { charThreshold: 100_000 }).parse();
      // The article's own HTML is serialised for the result; the page is never serialised or parsed.
      expect(parsed.mock.contexts).not.toContain(document.body);
      expect(serialised.mock.contexts).not.toContain(document.body);
      const plain = new Readability(parseHTML(html).document as never, { charThreshold: 100_000 }).parse();
      expect(fast).toEqual(plain);
      expect(fast?.textContent).toContain('Short, bold & plain.');
      // The page's innerHTML is linkedom's own again afterwards.
      expect(Object.getOwnPropertyDescriptor(document.body, 'innerHTML')).toBeUndefined();
    } finally {
      parsed.mockRestore();
      serialised.mockRestore();
    }
  });

  it('copies the page for a retry only when the search retries, from the document rebuilt', () => {
    const article = `<html><head><title>Story</title></head><body><div class="sidebar">${para('aside')}</div>
      <div class="content">${para('first')}${para('second')}<p>Short, <b>bold</b> &amp; plain.</p>
      <script>var x = 1;</script><style>p {}</style></div></body></html>`;
    for (const charThreshold of [100, 100_000]) {
      const { document } = parseHTML(article);
      const clones = vi.spyOn(
        Object.getPrototypeOf(document.body) as { cloneNode(deep?: boolean): unknown },
        'cloneNode',
      );
      let rebuilt = 0;
      const rebuild = () => {
        rebuilt++;
        return parseHTML(article).document;
      };
      try {
        const fast = new FastReadability(document as never, { charThreshold }, rebuild).parse();
        const plain = new Readability(parseHTML(article).document as never, { charThreshold }).parse();
        expect(fast).toEqual(plain);
        // 100 characters: found at the first search, nothing copied or rebuilt. 100,000: four
        // searches fall short, and after each the page is restored from a copy of the one rebuilt
        // document (taking a copy up front, as without `rebuild`, would make five).
        expect(rebuilt).toBe(charThreshold === 100 ? 0 : 1);
        expect(clones.mock.calls.length).toBe(charThreshold === 100 ? 0 : 4);
      } finally {
        clones.mockRestore();
      }
    }
  });

  it('finds the same elements by tag, outside <template> contents', () => {
    const reader = new FastReadability(
      parseHTML('<html><body></body></html>').document as never,
    ) as unknown as {
      _getAllNodesWithTag(node: unknown, tags: string[]): unknown[];
    };
    const { document } = parseHTML(
      '<html><body><div><P>a</P><template><p>t</p></template><section><p>b</p><H2>c</H2></section></div></body></html>',
    );
    const body = document.body as unknown as { querySelectorAll(selectors: string): ArrayLike<unknown> };
    const found = reader._getAllNodesWithTag(body, ['p', 'H2']);
    expect(found).toEqual(Array.from(body.querySelectorAll('p, h2')));
    expect(found).toHaveLength(3);
  });

  it('measures the link density of every element as Readability does', () => {
    const { plain, fast } = helpers<{ _getLinkDensity(element: unknown): number }>();
    const made = `<html><body><div id="x">  ${SPACES} lead ${SPACES}<a href="#top"> a  ${SPACES}</a>
      <a href="/p"><span> nested </span><a href="#in">inner</a> tail </a><![CDATA[ cdata  ]]>
      <template><a href="/t">template link</a></template> end${SPACES}</div>
      <div><a href="#only">  </a></div><div>${SPACES}</div><p>no links at all</p></body></html>`;
    let compared = 0;
    for (const element of everyElement(made)) {
      expect(fast._getLinkDensity(element)).toBe(plain._getLinkDensity(element));
      compared++;
    }
    expect(compared).toBeGreaterThan(5_000);
  });

  it('measures the text density of every element as Readability does', () => {
    const { plain, fast } = helpers<{ _getTextDensity(element: unknown, tags: string[]): number }>();
    // Nested ones (each measured on its own and inside the one around it), whitespace at their
    // edges and alone between them, a <template>'s own elements (not counted) and text (counted).
    const made = `<html><body><div id="x">${SPACES}lead<SPAN>${SPACES}a<span> b </span>c${SPACES}</SPAN>
      <div><p>one</p>${SPACES}<p>${SPACES}</p><p>two <b>bold</b>${SPACES}</p></div><span></span>x<span> </span>y
      <template><p>in a template</p> loose <div>t</div></template><![CDATA[ cdata  ]]>
      <h2> Head <span>ing </span></h2><ul><li> <b>1</b> </li><li>2<ul><li>2.1 </li></ul></li></ul>
      <table><tr><td> cell <td>cell<div> deep <div>deeper</div></div></table>${SPACES}</div>
      <div>${SPACES}</div><p>no children</p>${'<div>level '.repeat(30)}${'</div>'.repeat(30)}</body></html>`;
    const textish = ['SPAN', 'LI', 'TD', 'BLOCKQUOTE', 'DL', 'DIV', 'IMG', 'OL', 'P', 'PRE', 'TABLE', 'UL'];
    const headings = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
    let compared = 0;
    for (const element of everyElement(made)) {
      for (const tags of [textish, headings, ['template', 'p']])
        expect(fast._getTextDensity(element, tags)).toBe(plain._getTextDensity(element, tags));
      compared++;
    }
    expect(compared).toBeGreaterThan(5_000);
  });

  it("measures an element's collapsed, trimmed text as the regex does, without making it", () => {
    const made = `<div>  lead\u00a0 space <b> bold </b>\n\n<i></i> tail\t</div><p> </p><section><![CDATA[ data ]]> x </section>`;
    for (const element of everyElement(made) as Parameters<typeof spacedTextLength>[0][])
      expect(spacedTextLength(element)).toBe((element.textContent ?? '').replace(/\s+/g, ' ').trim().length);
  });

  it('counts as whitespace exactly what \\s matches', () => {
    for (let code = 0; code <= 0xffff; code++)
      expect(isSpace(code), code.toString(16)).toBe(/\s/.test(String.fromCharCode(code)));
  });
});
