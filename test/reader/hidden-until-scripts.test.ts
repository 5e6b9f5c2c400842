/**
 * Text a page hides until its scripts run is read as the page shows it once they have: a loading
 * veil over the whole page, a segment React streams in hidden and moves into place; the <noscript>
 * beside text a script draws is what the reader, which runs no scripts, shows. A hidden copy of the
 * article beside the article stays hidden.
 */
import { describe, expect, it } from 'vitest';
import { extractArticle } from '../../src/reader/extract-article.js';

const PARAGRAPHS = [
  'Query plans tell you what the database will do before it does it, and reading them is the first habit of anyone who tunes queries for a living.',
  'An index on the columns of a frequent filter turns a scan of every row into a walk down a tree, which is why the plan changes shape when one is added.',
  'Statistics go stale as tables grow, and a planner working from old counts picks joins that were right for a table a tenth of the size it is now.',
  'Partitioning by time keeps recent rows together, so the queries that ask about last week read last week and not the years of history behind it.',
];
const article = `<h1>Query optimisation</h1>${PARAGRAPHS.map((p) => `<p>${p}</p>`).join('')}`;
const shell = (inner: string) =>
  `<!doctype html><html><head><title>Query optimisation</title></head><body><header><nav><a href="/">Home</a> <a href="/blog">Blog</a></nav></header>${inner}<footer>© Example</footer></body></html>`;
const read = (html: string) => extractArticle(html, 'https://blog.example/query').blocks.join('\n\n');

describe('text hidden until scripts run', () => {
  it('a segment React streams in hidden (<div hidden id="S:0">) is read', () => {
    const text = read(
      shell(
        `<main><template id="B:0"></template></main><div hidden id="S:0"><article>${article}</article></div>`,
      ),
    );
    for (const p of PARAGRAPHS) expect(text).toContain(p);
  });

  it('a loading veil over the whole page (visibility:hidden) is read', () => {
    const text = read(
      shell(`<div style="visibility:hidden;min-height:100vh"><div class="content">${article}</div></div>`),
    );
    for (const p of PARAGRAPHS) expect(text).toContain(p);
  });

  it("a post a script draws is read from the <noscript> beside it (a Blogger theme's, a Discourse thread's)", () => {
    const text = read(
      shell(
        `<div class="post"><h2 class="title">Query optimisation</h2><div class="post-body" itemprop="articleBody"><script type="text/template">${article}</script><noscript>${article}</noscript></div></div><noscript><p>Please turn on JavaScript to comment.</p></noscript>`,
      ),
    );
    for (const p of PARAGRAPHS) expect(text.split(p).length - 1).toBe(1);
    expect(text).not.toContain('turn on JavaScript');
  });

  it('a hidden copy of the article beside the article stays hidden: the text comes once', () => {
    const text = read(
      shell(
        `<article>${article}</article><div style="display:none"><div class="feed">${article}</div></div>`,
      ),
    );
    for (const p of PARAGRAPHS) expect(text.split(p).length - 1).toBe(1);
  });
});

describe('class names that say how a page is built, not what it holds', () => {
  it("Adobe Experience Manager's components (cmp-…) are read: a consent platform is named otherwise", () => {
    const sections = PARAGRAPHS.map((p) => `<div class="cmp-text"><p>${p}</p></div>`).join('');
    const stats =
      '<div class="cmp-adversary-stats"><h4>The readiness gap is real</h4><p>Many teams remain untested.</p><ol><li>Only 34% of teams have a strategy</li><li>Only 4% are mature</li></ol></div>';
    const text = read(
      shell(
        `<main><div class="cmp-container responsivegrid"><h1 class="cmp-title">Query optimisation</h1>${stats}${sections}</div></main><div class="onetrust-consent-sdk"><p>We use cookies to improve your experience on our site, to show you personalised content and to analyse our traffic.</p></div>`,
      ),
    );
    expect(text).toContain('Many teams remain untested.');
    expect(text).toContain('Only 34% of teams have a strategy');
    for (const p of PARAGRAPHS) expect(text).toContain(p);
    expect(text).not.toContain('We use cookies');
  });
});

describe('a form around the whole page', () => {
  it('is the page (ASP.NET writes one) even when its text sits in tables rather than paragraphs', () => {
    const rows = PARAGRAPHS.map((p) => `<tr><td>${p}</td></tr>`).join('');
    const text = read(
      shell(
        `<form id="aspnetForm" action="./costs.aspx" method="post"><div class="content"><h1>Query optimisation</h1><table class="layout">${rows}</table></div></form>`,
      ),
    );
    for (const p of PARAGRAPHS) expect(text).toContain(p);
  });

  it('a search form beside the article still goes', () => {
    const text = read(
      shell(
        `<form role="search"><label>Search the blog for posts about databases</label><input name="q"></form><article>${article}</article>`,
      ),
    );
    expect(text).not.toContain('Search the blog');
    for (const p of PARAGRAPHS) expect(text).toContain(p);
  });
});
