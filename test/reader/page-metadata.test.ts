/**
 * The page's metadata read from one walk over its elements finds what the CSS selectors it replaced
 * found: JSON-LD by a type in any case, the author by `rel` (any case) or an `itemprop="name"` inside
 * an `itemprop="author"`, the date by `itemprop="datePublished"`, by a `<time datetime>` inside an
 * `<article>` or by `<time pubdate>`, the base URL by `<base href>`; and the structured data's
 * JSON-LD and microdata scopes the same way.
 */
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import type { DomDocument } from '../../src/reader/dom.js';
import { readMetadata } from '../../src/reader/page-metadata.js';
import { structuredContent } from '../../src/reader/structured-data.js';

const doc = (html: string) => parseHTML(html).document as unknown as DomDocument;

describe('readMetadata from one walk', () => {
  it('reads JSON-LD whatever the case of its type', () => {
    const meta = readMetadata(
      doc(
        '<html><head><script type="Application/LD+JSON">{"@type":"NewsArticle","headline":"The headline","author":{"name":"Ann Author"}}</script></head><body><p>x</p></body></html>',
      ),
      'https://news.example/a',
    );
    expect(meta.title).toBe('The headline');
    expect(meta.byline).toBe('Ann Author');
    expect(meta.declaresArticle).toBe(true);
  });

  it('finds the author by rel in any case, or by a name inside an author scope', () => {
    const byRel = readMetadata(
      doc('<html><body><span itemprop="name">Not this</span><a rel="AUTHOR">Bo Writer</a></body></html>'),
      'https://a.example/',
    );
    expect(byRel.byline).toBe('Bo Writer');
    const byScope = readMetadata(
      doc(
        '<html><body><span itemprop="name">Not this</span><div itemprop="author"><p><span itemprop="name">Cy Scribe</span></p></div></body></html>',
      ),
      'https://a.example/',
    );
    expect(byScope.byline).toBe('Cy Scribe');
  });

  it('finds the date by itemprop, by a time in an article, or by pubdate, in that order', () => {
    const read = (body: string) =>
      readMetadata(doc(`<html><body>${body}</body></html>`), 'https://a.example/').published;
    expect(
      read(
        '<time datetime="2020-01-01">outside</time><article><time datetime="2021-02-03">in</time></article>',
      ),
    ).toBe('2021-02-03');
    expect(
      read('<time datetime="2020-01-01">outside</time><time pubdate datetime="2022-04-05">x</time>'),
    ).toBe('2022-04-05');
    expect(
      read(
        '<article><time datetime="2021-02-03">in</time></article><span itemprop="datePublished" datetime="2023-06-07">x</span>',
      ),
    ).toBe('2023-06-07');
    expect(read('<time datetime="2020-01-01">outside any article</time>')).toBeUndefined();
  });

  it('resolves links against <base href>, the first one', () => {
    const meta = readMetadata(
      doc(
        '<html><head><base target="_blank"><base href="https://cdn.example/docs/"><base href="https://other.example/"></head><body></body></html>',
      ),
      'https://a.example/page',
    );
    expect(meta.baseUrl).toBe('https://cdn.example/docs/');
  });
});

describe('structuredContent from one walk', () => {
  it('reads JSON-LD whatever the case of its type, and microdata scopes', () => {
    const recipe = structuredContent(
      doc(
        '<html><body><script type="application/LD+json">{"@type":"Recipe","name":"Soup","recipeIngredient":["water","salt"],"recipeInstructions":["Boil."]}</script></body></html>',
      ),
    );
    expect(recipe?.keys).toEqual(expect.arrayContaining(['water', 'salt']));
    const micro = structuredContent(
      doc(
        '<html><body><div itemscope itemtype="https://schema.org/Recipe"><span itemprop="recipeIngredient">flour</span><span itemprop="recipeIngredient">eggs</span><div itemprop="recipeInstructions">Mix.</div></div></body></html>',
      ),
    );
    expect(micro?.keys).toEqual(expect.arrayContaining(['flour', 'eggs']));
  });
});
