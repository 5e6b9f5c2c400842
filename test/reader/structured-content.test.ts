/**
 * Choosing the content like the best readers: the page's own structured data (schema.org Recipe,
 * FAQPage, Product in JSON-LD or microdata) is a candidate beside Readability's block and the
 * cleaned page, and where the text chosen from the markup misses what it says the page holds, its
 * blocks come in; furniture is told by its shape and link density, in any language (here German).
 */
import { describe, expect, it } from 'vitest';
import { pageReader } from './read-page.js';
import { dropBoilerplateBlocks } from '../../src/reader/boilerplate-blocks.js';
import { extractArticle } from '../../src/reader/extract-article.js';
import {
  BLOG_PAGE,
  CARD_GRID_PAGE,
  CARDS,
  BLOG_TEXT,
  FAQ_ANSWERS,
  FAQ_PAGE,
  PRODUCT_DESCRIPTION,
  PRODUCT_PAGE,
  RECIPE_INGREDIENTS,
  RECIPE_PAGE,
  RECIPE_STEPS,
  RECIPE_STORY,
  SHOWN_HEADINGS,
  SHOWN_RECIPE_PAGE,
  SHOWN_STEPS,
} from './structured-pages.js';

const read = pageReader();

describe('structured data as a candidate', () => {
  it('a recipe blog whose recipe card sits in a sidebar: the ingredients and steps, and the story', async () => {
    const { markdown, title, site } = await read(RECIPE_PAGE);
    expect(title).toBe('Omas Roggenbrot mit Kümmel');
    expect(site).toBe('Backstube Lindner');
    for (const ingredient of RECIPE_INGREDIENTS) expect(markdown).toContain(`- ${ingredient}`);
    for (const [i, step] of RECIPE_STEPS.entries()) expect(markdown).toContain(`${i + 1}. ${step}`);
    expect(markdown).toContain('Total time: 4 h 10 min');
    for (const paragraph of RECIPE_STORY) expect(markdown).toContain(paragraph);
    // Once each: the card's own list is not repeated after the structured one.
    expect(markdown.split(RECIPE_INGREDIENTS[0] as string)).toHaveLength(2);
    expect(markdown).not.toContain('Kuchen');
  });

  it('a recipe card the page shows as written is read from the page: its sub-headings and amounts, each step once', async () => {
    const { markdown } = await read(SHOWN_RECIPE_PAGE);
    for (const heading of SHOWN_HEADINGS) expect(markdown).toContain(heading);
    expect(markdown).toContain('| 750 g | Magerquark |');
    for (const step of SHOWN_STEPS) expect(markdown.split(step)).toHaveLength(2);
    expect(markdown).not.toContain('Impressum');
  });

  it('bounded: 200 ingredients looked for in a page 300 elements deep and 15,000 wide cost little more than the page', () => {
    const ingredients = Array.from({ length: 200 }, (_, i) => `${i + 1} g Zutat Nummer ${i + 1}`);
    const recipe = JSON.stringify({ '@type': 'Recipe', name: 'Viel', recipeIngredient: ingredients });
    // Every element's text short enough to be compared, the same words everywhere, no key shown.
    const deep = `${'<div>Zutat '.repeat(300)}${'</div>'.repeat(300)}`;
    const wide = Array.from({ length: 15_000 }, (_, i) => `<span>g Zutat ${i % 7}</span>`).join('');
    const page = (head: string) =>
      `<html><head>${head}</head><body><main><p>${RECIPE_STORY.join(' ')}</p>${deep}<div>${wide}</div></main></body></html>`;
    // CPU time, not the wall clock: a busy machine does not make either reading look slower.
    const timed = (html: string) => {
      const started = process.cpuUsage();
      const result = extractArticle(html, 'https://seite.example/viel');
      const used = process.cpuUsage(started);
      return { result, ms: (used.user + used.system) / 1e3 };
    };
    // The same page without its structured data, read in this test: the baseline on this machine now.
    const plain = timed(page(''));
    const withRecipe = timed(page(`<script type="application/ld+json">${recipe}</script>`));
    expect(withRecipe.result.blocks.join('\n')).toContain('- 1 g Zutat Nummer 1');
    expect(withRecipe.ms).toBeLessThan(plain.ms * 3 + 500);
  });

  it('an FAQ in microdata whose answers are hidden until a click: every question with its answer', async () => {
    const { markdown } = await read(FAQ_PAGE);
    expect(markdown).toContain('### Wie kann ich eine Bestellung zurücksenden?');
    for (const answer of FAQ_ANSWERS) expect(markdown).toContain(answer);
    expect(markdown).not.toContain('Impressum');
  });

  it('a shop page drawn by script: the product from its JSON-LD, price and description', async () => {
    const { markdown, title } = await read(PRODUCT_PAGE);
    expect(title).toBe('Teppich Alpsee');
    expect(markdown).toContain('Price: 489.00 EUR');
    expect(markdown).toContain(PRODUCT_DESCRIPTION);
    expect(markdown).not.toContain('Kissen');
  });

  it('an article whose visible text holds what its data says is left as it is', async () => {
    // The recipe card inside the article, where Readability finds it.
    const page = RECIPE_PAGE.replace('</article>\n<aside class="rezeptkarte">', '<section>').replace(
      '</aside></main>',
      '</section></article></main>',
    );
    expect(page).not.toContain('<aside');
    const { markdown } = await read(page);
    for (const ingredient of RECIPE_INGREDIENTS) expect(markdown.split(ingredient)).toHaveLength(2);
    expect(markdown).not.toContain('Total time');
  });
});

describe('cards: a link around a title and its text', () => {
  it('a docs index of cards keeps every card as its title (a heading) and its sentence', async () => {
    const { markdown } = await read(CARD_GRID_PAGE);
    for (const [title, text] of CARDS) {
      expect(markdown).toMatch(new RegExp(`^### \\[?${title}`, 'm'));
      expect(markdown).toContain(text);
    }
    expect(markdown).not.toContain('Impressum');
  });
});

describe('furniture in any language, by its shape', () => {
  it('a German post keeps its text and loses its share bar, related posts, newsletter box and consent banner', async () => {
    const { markdown } = await read(BLOG_PAGE);
    for (const paragraph of BLOG_TEXT) expect(markdown).toContain(paragraph);
    expect(markdown).not.toContain('Cookies');
    expect(markdown).not.toContain('Alle akzeptieren');
    expect(markdown).not.toContain('Bleiben Sie informiert');
    expect(markdown).not.toContain('Postfach');
    expect(markdown).not.toContain('Das könnte Sie auch interessieren');
    expect(markdown).not.toContain('Radweg');
    expect(markdown).not.toContain('Facebook');
  });

  it('the label of a share bar or link list goes with it; a sentence before a list stays', () => {
    expect(
      dropBoilerplateBlocks([
        'Der Stadtrat hat am Dienstag beschlossen, die Halle zu sanieren.',
        'Diesen Beitrag teilen:',
        '- [Facebook](https://facebook.example/share)\n- [X](https://x.example/share)\n- [E-Mail](https://mail.example/share)',
        'Die Sanierung soll 14 Millionen Euro kosten.',
        '- [Neuer Radweg](https://a.example/1)\n- [Grundschule bekommt Mensa](https://a.example/2)',
      ]),
    ).toEqual([
      'Der Stadtrat hat am Dienstag beschlossen, die Halle zu sanieren.',
      'Die Sanierung soll 14 Millionen Euro kosten.',
    ]);
  });

  it('a heading over nothing but a list of links goes with the list; one over text stays', () => {
    expect(
      dropBoilerplateBlocks([
        'Erster Absatz mit genug Worten, um ein Absatz zu sein.',
        '## Ähnliche Beiträge',
        '- [Neuer Radweg](https://a.example/1)\n- [Grundschule bekommt Mensa](https://a.example/2)',
        '## Weiter im Text',
        'Zweiter Absatz des Beitrags.',
        '### Zum Schluss',
        '- [Freibad öffnet früher](https://a.example/3)',
      ]),
    ).toEqual([
      'Erster Absatz mit genug Worten, um ein Absatz zu sein.',
      '## Weiter im Text',
      'Zweiter Absatz des Beitrags.',
    ]);
  });
});
