/**
 * `<![CDATA[` in a page's markup is a bogus comment to a browser (it ends at the next `>`), not a
 * section that runs to `]]>`: a page that writes one and never closes it still shows its text.
 */
import { describe, expect, it } from 'vitest';
import { extractArticle } from '../../src/reader/extract-article.js';
import { withoutHtmlCdata } from '../../src/reader/html-cdata.js';

const POSTS = [
  'I want to buy a wearable to measure the basics: oxygen, heart rate and sleep, and I am on Android, so no watch from Apple.',
  'I have had mine for a year now and the battery lasts about a week with the heart rate measured every ten minutes.',
  'The heart rate readings matched the chest strap within two beats on every run, which is what I needed for training.',
  'Sleep tracking is the weak part: it counts reading in bed as light sleep, though the oxygen figures look plausible.',
];

function forumPage(afterBody: string, head = ''): string {
  const posts = POSTS.map(
    (p) => `<article class="message"><div class="bbWrapper"><p>${p}</p></div></article>`,
  );
  return `<!doctype html><html><head><title>Best wearable under $200</title>${head}</head><body>${afterBody}<div class="p-body"><h1>Best wearable under $200</h1>${posts.join('')}</div></body></html>`;
}

describe('CDATA markers in HTML', () => {
  it('a bare <![CDATA[ after <body>, never closed, does not hide the page', () => {
    const text = extractArticle(
      forumPage('<![CDATA[\n\n<div id="jumpToTop"></div>'),
      'https://forum.example/t/1',
    ).blocks.join('\n\n');
    for (const post of POSTS) expect(text).toContain(post);
  });

  it("one in a script stays the script's text and the page after the script is read", () => {
    const script = '<script>//<![CDATA[\nvar a = "<![CDATA[";\n</script>';
    const text = extractArticle(forumPage('', script), 'https://forum.example/t/2').blocks.join('\n\n');
    for (const post of POSTS) expect(text).toContain(post);
    expect(withoutHtmlCdata(`<p>a</p>${script}`)).toBe(`<p>a</p>${script}`);
  });

  it('is removed as a browser removes it: up to the next >, or only the marker where a tag comes first', () => {
    expect(withoutHtmlCdata('<p>a<![CDATA[ hidden ]]>b</p>')).toBe('<p>ab</p>');
    expect(withoutHtmlCdata('<p>a</p><![CDATA[<div>b</div>')).toBe('<p>a</p><div>b</div>');
    expect(withoutHtmlCdata('<style>/*<![CDATA[*/ p{} </style><![CDATA[>x')).toBe(
      '<style>/*<![CDATA[*/ p{} </style>x',
    );
  });
});
