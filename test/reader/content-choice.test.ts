/**
 * Choosing the page's text among candidates, by structure and in any language: accordions inside
 * the main block are read; a comments area that only says comments are closed goes, an opinion
 * column named "Kommentar" stays; where Readability's pick misses the densest block of prose (a post
 * in a container it takes for a comments area), the dense block is read instead of the sidebar.
 */
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { pageReader } from './read-page.js';
import { densestBlock } from '../../src/reader/content-candidates.js';
import type { DomElement } from '../../src/reader/dom.js';
import { extractArticle } from '../../src/reader/extract-article.js';
import {
  ARCHIVE_TEASERS,
  CLOSED_COMMENTS_ES,
  COMMUNITY_PAGE_NL,
  COMMUNITY_POST_NL,
  OPINION_DE,
  OPINION_TEXT_DE,
  POST_TEXT_ES,
  READER_COMMENTS,
  REVIEW_TEXT,
  REVIEW_WITH_COMMENTS,
  SHOP_ACCORDION,
  SHOP_DESCRIPTION,
  SHOP_PAGE,
  SHOP_PANEL,
} from './candidate-pages.js';
import { BLOG_PAGE, BLOG_TEXT } from './structured-pages.js';
import { startWorkClock } from '../helpers/work-clock.js';

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

describe('the main area against Readability’s pick', () => {
  it("an article's readers' comments, twice its length and more, do not make the page a thread", () => {
    const text = extractArticle(REVIEW_WITH_COMMENTS, 'https://werkbank.example/kanban').blocks.join('\n\n');
    for (const paragraph of REVIEW_TEXT) expect(text).toContain(paragraph);
    for (const comment of READER_COMMENTS) expect(text).not.toContain(comment);
  });

  it('a thread whose posts are named as comments is read whole', () => {
    // No article above the posts: Readability's pick is one of them, and the thread is the content.
    const thread = REVIEW_WITH_COMMENTS.replace(/<div class="article-body">.*?<\/div>/s, '');
    const text = extractArticle(thread, 'https://werkbank.example/forum/1').blocks.join('\n\n');
    for (const comment of READER_COMMENTS) expect(text).toContain(comment);
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

  it("a gallery's longest caption is not the densest block: the article around the gallery is", () => {
    const caption = COMMUNITY_POST_NL.slice(0, 3)
      .map((p) => `<p>${p}</p>`)
      .join('');
    const html = `<html><body><article><h1>Speeltuin</h1><p>${COMMUNITY_POST_NL[3]}</p><p>${ARCHIVE_TEASERS[0]}</p>
<div class="slides"><figure><img src="a.jpg"><figcaption>${caption}</figcaption></figure></div></article></body></html>`;
    const dense = densestBlock(parseHTML(html).document.body as unknown as DomElement, () => false);
    expect(dense?.element.tagName).toBe('ARTICLE');
    expect(dense?.paragraphs).toEqual([COMMUNITY_POST_NL[3], ARCHIVE_TEASERS[0]]);
  });

  it("a site's menu drawn as a custom element (<pp-navigation>) is navigation: the dense block is the article", () => {
    // Each menu section is a paragraph of labels without links (the links come from a script): as
    // prose they would outweigh the short press release.
    const menu = ARCHIVE_TEASERS.concat(READER_COMMENTS)
      .map((t) => `<div class="menu-section">Übersicht: ${t}</div>`)
      .join('');
    const html = `<html><body><pp-header><pp-navigation>${menu}</pp-navigation></pp-header>
<main><div class="meldung"><h1>Speeltuin opgeknapt</h1>${COMMUNITY_POST_NL.map((p) => `<div class="community-post__alinea">${p}</div>`).join('')}</div></main>
<site-footer><div>© Buurtblog</div></site-footer></body></html>`;
    const text = extractArticle(html, 'https://buurt.example/speeltuin').blocks.join('\n');
    for (const paragraph of COMMUNITY_POST_NL) expect(text).toContain(paragraph);
    expect(text).not.toContain('Übersicht');
    expect(text).not.toContain('Buurtblog');
  });

  it("a short post of links above a longer author box (WordPress's #author-info): the post is read, not the bio alone", () => {
    // A podcast episode's note: one sentence, most of it links (its guests, the event), then the player.
    const post = `<p>Auch auf dem <a href="https://camp.example/2019">KnowledgeCamp 2019 in Berlin</a> haben wir live gepodcastet. Zu Gast waren <a href="https://people.example/heisig">Prof. Peter Heisig</a> und <a href="https://people.example/bornemann">Dr. Manfred Bornemann</a>.</p>`;
    const bio = READER_COMMENTS.slice(0, 2).join(' ');
    const html = `<html><body><div id="content"><article class="post"><h1>Live vom Camp</h1>
<div class="entry-content">${post}<audio src="folge.mp3"></audio></div>
<div id="author-info"><div class="author-description"><h2>Über Simon</h2><p>${bio}</p></div></div></article></div></body></html>`;
    const text = extractArticle(html, 'https://podcast.example/folge-39').blocks.join('\n');
    expect(text).toContain('haben wir live gepodcastet');
  });

  it("an image's caption, named so, is not read with the article; the article's paragraphs are", () => {
    const html = `<html><body><article><h1>Speeltuin opgeknapt</h1><p>${COMMUNITY_POST_NL[0]}</p>
<div class="wp-caption"><img src="schommel.jpg"><p class="wp-caption-text">De oude schommel, vlak voor de sloop. Foto: Buurtblog Oost</p></div>
${COMMUNITY_POST_NL.slice(1)
  .map((p) => `<p>${p}</p>`)
  .join('')}</article></body></html>`;
    const text = extractArticle(html, 'https://buurt.example/speeltuin').blocks.join('\n');
    for (const paragraph of COMMUNITY_POST_NL) expect(text).toContain(paragraph);
    expect(text).not.toContain('Foto: Buurtblog');
  });

  it("a post's date and author box, named so, are not read as its text", () => {
    const html = `<html><body><article><h1><span class="date">12.05.2024</span> Speeltuin opgeknapt</h1>
${COMMUNITY_POST_NL.map((p) => `<p>${p}</p>`).join('')}
<div class="post-author"><img src="anja.jpg"><div><h4>Anja</h4><span>Anja schrijft sinds 2015 over de buurt, de tuin en alles wat er in de wijk gebeurt.</span></div></div></article></body></html>`;
    const text = extractArticle(html, 'https://buurt.example/speeltuin').blocks.join('\n');
    for (const paragraph of COMMUNITY_POST_NL) expect(text).toContain(paragraph);
    expect(text).toContain('Speeltuin opgeknapt');
    expect(text).not.toContain('12.05.2024');
    expect(text).not.toContain('schrijft sinds 2015');
  });

  it('bounded: a page of 3,000 comment-named boxes and 3,000 accordion controls is read in time', () => {
    const boxes = Array.from(
      { length: 3_000 },
      (_, i) =>
        `<div class="kommentar-${i}"><button aria-expanded="false" aria-controls="p${i}">Mehr</button><div id="p${i}" hidden><p>Antwort ${i}</p></div></div>`,
    ).join('');
    const page = `<html><body><main><p>${BLOG_TEXT.join(' ')}</p>${boxes}</main></body></html>`;
    const work = startWorkClock();
    const result = extractArticle(page, 'https://seite.example/viele');
    const ms = work();
    expect(result.blocks.join('\n')).toContain(BLOG_TEXT[0]);
    expect(ms).toBeLessThan(4_000);
  });
});

describe("the page's own mark of its article body (microdata)", () => {
  // A Blogger post written in Org mode: the introduction is lines set apart by <br>, the sections
  // after it are paragraphs; Readability scores the paragraphs and keeps only their section.
  const intro = [
    'This blog article about meta programming in Python reminded me to write up the equivalent for Emacs Lisp.',
    'Decorators in Python enable you to modify the behavior of existing functions without changing the original function.',
    'Advice in Lisp, which traces back to the eighties, enables similar functionality, and it inspired aspect oriented programming.',
    'The rest of this article shows how a speech interface was built on it, one advice at a time, over twenty five years.',
  ];
  const section = [
    'Module advice.el provided the ability to add before, after, or around advice, and Emacspeak used all three of them, in its own way.',
    'An after advice spoke the line moved to, a before advice spoke the character about to be deleted, and an around advice spoke completions.',
    'Present versions of Emacs still include advice.el, as well as a simpler front end, nadvice.el, that attaches functions to existing code.',
  ];
  const post = (mark: string) =>
    `<!doctype html><html><head><title>Meta-Programming In Emacs</title></head><body>
    <div class="sidebar"><h2>Archive</h2><ul><li><a href="/2019/09/">September</a></li><li><a href="/2019/08/">August</a></li></ul></div>
    <div class="post hentry"><h3 class="post-title">Meta-Programming In Emacs Using Defadvice</h3>
    <div class="post-body entry-content" ${mark}>
      <div id="content"><h1 class="title">Meta-Programming In Emacs Using defadvice</h1>
      <div class="outline-2"><h2>1 Introduction</h2><div class="outline-text-2">${intro.join('<br />\n')}</div></div>
      <div class="outline-2"><h2>2 Background</h2><div class="outline-text-2">${section.map((p) => `<p>${p}</p>`).join('')}</div></div>
      </div>
    </div></div></body></html>`;

  it('a post marked itemprop="articleBody" is read whole: its introduction, not only the section Readability scores', () => {
    const text = extractArticle(
      post('itemprop="description articleBody"'),
      'https://emacs.example/2019/10/advice.html',
    ).blocks.join('\n\n');
    for (const line of [...intro, ...section]) expect(text).toContain(line);
    expect(text).not.toContain('September');
  });

  it("a mark on less than Readability's pick (a teaser's) leaves the article as Readability reads it", () => {
    const html = `<!doctype html><html><head><title>Advice</title></head><body>
      <div class="sidebar"><div class="teaser" itemprop="articleBody"><p>${intro[1]}</p></div></div>
      <article>${[...intro, ...section].map((p) => `<p>${p}</p>`).join('')}</article></body></html>`;
    const read = extractArticle(html, 'https://emacs.example/2019/10/advice.html');
    const text = read.blocks.join('\n\n');
    for (const line of [...intro, ...section]) expect(text).toContain(line);
    expect(read.method).toBe('article');
  });
});

describe('a body split into containers of one class in different rows of the layout', () => {
  // Politico's layout: the story's paragraphs sit in `<div class="story-text">` containers in
  // separate rows, with ad slots and a sidebar column between them.
  const first = [
    "Rep. Mark Meadows' shock retirement, revealed just thirty hours before the filing deadline, has roiled some Republicans in the state.",
    'The four-term congressman will depart the House for a role with the president, a decision he disclosed in an interview that morning.',
  ];
  const rest = [
    'Wary Republicans in the state quickly speculated that she had advance notice of the retirement, and several said so in public.',
    'Later that day came a campaign launch by a local activist and real estate agent who is friendly with the congressman’s wife.',
    'She filed her paperwork minutes before the deadline, and by the next week she had the endorsement of a group of local donors.',
    'Her opponents, who had weeks less to prepare, said the timing gave her an advantage that no other candidate could have had.',
    'The congressman said he had not timed anything, and that he had told his family about the decision only the night before.',
  ];
  const row = (inner: string) =>
    `<section class="row"><div class="container"><div class="column">${inner}</div><div class="column side"><aside><a href="/ads">Advertisement</a></aside></div></div></section>`;
  const html = `<!doctype html><html><head><title>Meadows accused of timing retirement</title></head><body>
    <header><nav><a href="/">Home</a> <a href="/news">News</a></nav></header>
    <main>${row(`<h1>Meadows accused of timing retirement</h1><div class="story-text">${first.map((p) => `<p>${p}</p>`).join('')}</div>`)}
    ${row(`<div class="story-text">${rest.map((p) => `<p>${p}</p>`).join('')}</div>`)}</main>
    <footer><p>Terms of Service · Privacy policy · Cookie settings</p></footer></body></html>`;

  it('every part is read, in the order of the page', () => {
    const text = extractArticle(html, 'https://news.example/2019/12/30/meadows').blocks.join('\n\n');
    const paragraphs = [...first, ...rest];
    for (const p of paragraphs) expect(text).toContain(p);
    const at = paragraphs.map((p) => text.indexOf(p));
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(text).not.toContain('Advertisement');
    expect(text).not.toContain('Terms of Service');
  });

  it('a container of the same class after the text (a disclaimer, "about us") is not read as a part', () => {
    const about = row(
      '<div class="story-text"><p>News Example is a nonprofit newsroom founded in 1976 that covers politics in North Carolina and beyond, with support from readers like you.</p></div>',
    );
    const text = extractArticle(
      html.replace('</main>', `${about}</main>`),
      'https://news.example/x',
    ).blocks.join('\n\n');
    for (const p of [...first, ...rest]) expect(text).toContain(p);
    expect(text).not.toContain('nonprofit newsroom');
  });
});
