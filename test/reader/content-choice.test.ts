/**
 * Choosing the page's text among candidates, by structure and in any language: accordions inside
 * the main block are read; a comments area that only says comments are closed goes, an opinion
 * column named "Kommentar" stays; where Readability's pick misses the densest block of prose (a post
 * in a container it takes for a comments area), the dense block is read instead of the sidebar.
 */
import { describe, expect, it } from 'vitest';
import { pageReader } from './read-page.js';
import { extractArticle } from '../../src/reader/extract-article.js';
import {
  ARCHIVE_TEASERS,
  CLOSED_COMMENTS_ES,
  COMMUNITY_PAGE_NL,
  COMMUNITY_POST_NL,
  OPINION_DE,
  OPINION_TEXT_DE,
  POST_TEXT_ES,
  SHOP_ACCORDION,
  SHOP_DESCRIPTION,
  SHOP_PAGE,
  SHOP_PANEL,
} from './candidate-pages.js';
import { BLOG_PAGE, BLOG_TEXT } from './structured-pages.js';

const read = pageReader();

describe('accordions inside the main block', () => {
  it('a French shop page: the description, the <details> group and the panel an aria-expanded button opens', async () => {
    const { markdown } = await read(SHOP_PAGE);
    for (const paragraph of [...SHOP_DESCRIPTION, ...SHOP_ACCORDION, SHOP_PANEL])
      expect(markdown).toContain(paragraph);
    expect(markdown).toContain('Livraison');
    expect(markdown).not.toContain('Mentions légales');
  });

  it("a site menu's hidden panel stays hidden", async () => {
    const page = SHOP_PAGE.replace(
      '<nav>',
      '<button aria-expanded="false" aria-controls="menu-mobile" aria-haspopup="true">Menu</button><div id="menu-mobile" hidden><p>Toutes nos boutiques, nos ateliers et nos cours de dégustation, de Lyon à Bordeaux.</p></div><nav>',
    );
    const { markdown } = await read(page);
    expect(markdown).not.toContain('nos cours de dégustation');
    expect(markdown).toContain(SHOP_PANEL);
  });
});

describe('a comments area that holds only a notice', () => {
  it('Spanish: "Los comentarios … están cerrados" in a section named for comments goes, the text stays', async () => {
    const { markdown } = await read(CLOSED_COMMENTS_ES);
    for (const paragraph of POST_TEXT_ES) expect(markdown).toContain(paragraph);
    expect(markdown).not.toContain('cerrados');
  });

  it('German: "Die Kommentarfunktion … wurde geschlossen" after the post goes', async () => {
    const { markdown } = await read(BLOG_PAGE);
    for (const paragraph of BLOG_TEXT) expect(markdown).toContain(paragraph);
    expect(markdown).not.toContain('Kommentarfunktion');
  });

  it('a German opinion column in a container named "kommentar" keeps all its text, its last line too', async () => {
    const { markdown } = await read(OPINION_DE);
    for (const paragraph of OPINION_TEXT_DE) expect(markdown).toContain(paragraph);
    expect(markdown).toContain('Die Sperrung muss ein Ende haben.');
  });

  it('a notice with a link (to the discussion elsewhere) or before more text stays', () => {
    const withLink = CLOSED_COMMENTS_ES.replace(
      '<p>Los comentarios de esta noticia están cerrados.</p>',
      '<p>Los comentarios están cerrados; sigue el debate en <a href="/foro">el foro</a>.</p>',
    );
    expect(extractArticle(withLink, 'https://diario.example/n').blocks.join('\n')).toContain('el foro');
    const before = CLOSED_COMMENTS_ES.replace(
      '</section>',
      `</section><p>${'Fe de erratas: la línea de autobús afectada es la 4, no la 14 como decía la primera versión. '.repeat(2)}</p>`,
    );
    expect(extractArticle(before, 'https://diario.example/n').blocks.join('\n')).toContain('cerrados');
  });
});

describe("Readability's pick against the densest block", () => {
  it('a Dutch post Readability passes over for the archive: the post, not the sidebar', async () => {
    const { markdown } = await read(COMMUNITY_PAGE_NL);
    for (const paragraph of COMMUNITY_POST_NL) expect(markdown).toContain(paragraph);
    for (const teaser of ARCHIVE_TEASERS) expect(markdown).not.toContain(teaser);
  });

  it('the dense block does not take over where Readability holds the text', () => {
    // The same post in a plain container: Readability finds it, and the answer is the same.
    const plain = COMMUNITY_PAGE_NL.replaceAll('community-post', 'bericht');
    const read = extractArticle(plain, 'https://buurt.example/speeltuin');
    expect(read.method).toBe('article');
    for (const paragraph of COMMUNITY_POST_NL) expect(read.blocks.join('\n')).toContain(paragraph);
  });

  it('bounded: a page of 3,000 comment-named boxes and 3,000 accordion controls is read in time', () => {
    const boxes = Array.from(
      { length: 3_000 },
      (_, i) =>
        `<div class="kommentar-${i}"><button aria-expanded="false" aria-controls="p${i}">Mehr</button><div id="p${i}" hidden><p>Antwort ${i}</p></div></div>`,
    ).join('');
    const page = `<html><body><main><p>${BLOG_TEXT.join(' ')}</p>${boxes}</main></body></html>`;
    const started = process.hrtime.bigint();
    const result = extractArticle(page, 'https://seite.example/viele');
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    expect(result.blocks.join('\n')).toContain(BLOG_TEXT[0]);
    expect(ms).toBeLessThan(4_000);
  });
});
