/**
 * Parts of a page around its text, told by structure alone: the lead (standfirst) in the article's
 * own header beside its title, which Readability's block leaves out and the reader puts back; and
 * the byline Readability guesses from the markup, kept only where it is shaped like names; a
 * "read also" teaser inside the text (a short label, a colon, a link that is the rest), in any language;
 * lines set wholly in bold after the text (calls to action).
 */
import { describe, expect, it } from 'vitest';
import { dropBoilerplateBlocks } from '../../src/reader/boilerplate-blocks.js';
import { extractArticle } from '../../src/reader/extract-article.js';

const URL = 'https://zeitung.example/wirtschaft/waermepumpen';

const LEAD =
  'Wärmepumpen boomen: Trotz schwieriger Lieferketten haben die Hersteller im Sommer so viele Geräte verkauft wie nie zuvor.';
const SENTENCES = [
  'Im ersten Halbjahr lag der Absatz um ein Drittel über dem des Vorjahres, meldet der Verband der Hersteller in seiner neuen Statistik.',
  'Vor allem Besitzer älterer Einfamilienhäuser tauschen ihre Ölheizung aus, weil die Förderung für den Umstieg im Frühjahr erhöht wurde.',
  'Installateure berichten von Wartezeiten bis zu einem halben Jahr, weil Fachkräfte fehlen und einzelne Bauteile knapp bleiben.',
  'Die Branche rechnet damit, dass sich die Lage im kommenden Jahr entspannt, wenn neue Werke in Polen und Tschechien fertig sind.',
];
/** A long body: Readability takes its container alone, not the article around it and its header. */
const BODY = Array.from({ length: 8 }, (_, i) => `Absatz ${i + 1}: ${SENTENCES.join(' ')}`);

function articlePage(header: string): string {
  return `<!doctype html><html lang="de"><head><title>Wärmepumpen | Zeitung</title></head><body>
<nav><a href="/">Start</a> <a href="/wirtschaft">Wirtschaft</a></nav>
<main><article>${header}
<div class="article-content"><div class="article-body">${BODY.map((p) => `<p>${p}</p>`).join('')}</div>
<div class="article-tools"><a href="/druck">Drucken</a></div></div>
</article></main><footer><p>Impressum · Datenschutz</p></footer></body></html>`;
}

/** A local news story's opening sentence, and the two sentences furniture is judged beside. */
const OPENING =
  'Die Stadt hat den Radweg am Fluss nach zwei Jahren Bauzeit eröffnet, sagte die Bürgermeisterin am Montag.';
const PROSE = [
  OPENING,
  'Er verbindet die Altstadt mit dem Hafen und ist nachts beleuchtet, damit auch Pendler ihn im Winter nutzen.',
];
describe("the page's own summary where it shows it (its standfirst)", () => {
  const withDescription = (description: string, shown: string) =>
    articlePage(`<h1>Absatz von Wärmepumpen auf Rekordhoch</h1>${shown}`).replace(
      '<title>',
      `<meta property="og:description" content="${description}"><title>`,
    );

  it('comes first where the page prints it outside the block Readability takes, once', () => {
    const html = withDescription(LEAD, `<div class="standfirst"><span>${LEAD}</span></div>`);
    const { blocks } = extractArticle(html, URL);
    expect(blocks[0]).toBe(LEAD);
    expect(blocks.join('\n\n').split(LEAD)).toHaveLength(2);
  });

  it("is not added where it is longer than a paragraph: the body's opening copied whole", () => {
    // A shop's blog copies the post's first 2,000 characters, its title glued before them.
    const copied = `Absatz von Wärmepumpen auf Rekordhoch ${BODY.slice(0, 4).join(' ')}`;
    const html = withDescription(copied, `<div class="standfirst">${copied}</div>`);
    const text = extractArticle(html, URL).blocks.join('\n\n');
    expect(text.split(BODY[0] as string)).toHaveLength(2);
  });

  it('is not added where it is only metadata, or cut short with "…"', () => {
    const cut = `${LEAD.slice(0, 90)} …`;
    for (const html of [withDescription(LEAD, ''), withDescription(cut, `<p class="teaser">${cut}</p>`)]) {
      const text = extractArticle(html, URL).blocks.join('\n\n');
      expect(text).not.toContain(LEAD.slice(0, 60));
      for (const paragraph of BODY) expect(text).toContain(paragraph);
    }
  });
});

describe("the lead in the article's header", () => {
  it('comes ahead of the body, once', () => {
    const html = articlePage(
      `<header class="article-header"><h1>Absatz von Wärmepumpen auf Rekordhoch</h1><div class="teaser"><p class="intro">${LEAD}</p></div><p class="meta">Von Jana Beispiel, 3. Mai 2024</p></header>`,
    );
    const { blocks } = extractArticle(html, URL);
    const text = blocks.join('\n\n');
    expect(blocks[0]).toBe(LEAD);
    for (const paragraph of BODY) expect(text).toContain(paragraph);
    expect(text.split(LEAD)).toHaveLength(2);
    expect(text).not.toContain('Impressum');
  });

  it('a line of furniture in the header (an affiliate disclosure) is not a lead', () => {
    const disclosure = 'Zeitung Beispiel may earn a commission when you buy through links on our site.';
    const html = articlePage(
      `<header class="article-header"><p class="note">${disclosure}</p><h1>Absatz von Wärmepumpen auf Rekordhoch</h1><p class="intro">${LEAD}</p></header>`,
    );
    const { blocks } = extractArticle(html, URL);
    expect(blocks[0]).toBe(LEAD);
    expect(blocks.join('\n\n')).not.toContain('commission');
  });

  it("a teaser's header in a list of articles is not a lead", () => {
    const teaser = `<article class="teaser"><header><h2><a href="/b">Mehr zum Thema Heizen</a></h2><p>Ein anderer Text über Heizungen, der auf dieser Seite nur angerissen wird und woanders steht.</p></header></article>`;
    const html = articlePage('<h1>Absatz von Wärmepumpen auf Rekordhoch</h1>').replace(
      '</article></main>',
      `</article><aside class="more">${teaser}</aside></main>`,
    );
    const text = extractArticle(html, URL).blocks.join('\n\n');
    expect(text).not.toContain('Ein anderer Text über Heizungen');
  });
});

describe("Readability's guess at a byline", () => {
  const withAuthorLine = (line: string) =>
    articlePage('<h1>Absatz von Wärmepumpen auf Rekordhoch</h1>').replace(
      '<div class="article-content">',
      `<div class="author">${line}</div><div class="article-content">`,
    );

  it('is kept when it reads as names', () => {
    expect(extractArticle(withAuthorLine('Jana Beispiel'), URL).byline).toBe('Jana Beispiel');
  });

  it('is left out when it is a label, a date, a reading time or an address', () => {
    for (const line of [
      'Autor: www.heizen.example',
      'Posted on 21.09.2020 by Jana',
      'Jana Beispiel | 4 Min.',
    ])
      expect(extractArticle(withAuthorLine(line), URL).byline, line).toBeUndefined();
  });
});

describe('a teaser inside the text: a short label, a colon and a link to another article', () => {
  const prose = OPENING;
  it('goes, whatever the language of the label', () => {
    const teasers = [
      'Lesen Sie auch: [Neue Brücke über die Ems kostet mehr als geplant](https://zeitung.example/bruecke)',
      'Czytaj też: [Wyścig zbrojeń ruszył z kopyta](https://gazeta.example/wyscig)',
      'Voir aussi : [Le pont de la Loire rouvre en mai](https://journal.example/pont).',
    ];
    expect(dropBoilerplateBlocks([prose, ...teasers, prose.replace('Montag', 'Dienstag')])).toEqual([
      prose,
      prose.replace('Montag', 'Dienstag'),
    ]);
  });

  it('a sentence that links some of its words stays, and so does a label over a list', () => {
    const blocks = [
      'Mehr dazu lesen Sie im [Bericht des Verbands](https://verband.example/bericht) vom Montag.',
      'Das sagt der Verband: Der Radweg ist ein Gewinn für alle, die zur Arbeit pendeln, und für den Tourismus.',
      'Zutaten:\n- 200 g Mehl',
    ];
    expect(dropBoilerplateBlocks(blocks)).toEqual(blocks);
  });
});

describe('a label set between list marks and punctuation', () => {
  const prose = OPENING;
  it('goes, however many marks surround it, and a sentence that starts with a label word stays', () => {
    const labels = [
      '- Share this:',
      '• • Related posts…',
      '*\u00a0Advertisement |',
      'Read more!!',
      '-•* Tags :|',
      '...',
    ];
    const kept = [
      '- Share this story with a friend who rides to work along the river.',
      '* 3 comments on the plan:',
    ];
    expect(dropBoilerplateBlocks([prose, ...labels, ...kept])).toEqual([prose, ...kept]);
  });
});

describe('lines set wholly in bold after the text', () => {
  const prose = PROSE;
  it('go: they are calls to action, in whatever language', () => {
    const tail = ['**¡Mira lo que tiene nuestro canal de YouTube!**', '**Folgen Sie uns auf Mastodon!**'];
    expect(dropBoilerplateBlocks([...prose, ...tail])).toEqual(prose);
  });

  it('a bold label before text stays, and so does a text that is all bold lines', () => {
    const labelled = ['**Das Wichtigste:**', ...prose];
    expect(dropBoilerplateBlocks(labelled)).toEqual(labelled);
    const allBold = ['**Erste Zeile des Gedichts**', '**Zweite Zeile des Gedichts**'];
    expect(dropBoilerplateBlocks(allBold)).toEqual(allBold);
  });
});

describe('short lines after the last paragraph of prose', () => {
  const prose = PROSE;
  it('go when they are not sentences: labels, credits, names, prompts, in any language', () => {
    const tail = [
      'Kontakt:',
      'Ansprechpartnerin zum Thema Radverkehr',
      'Titelbild: Stadt Beispiel',
      'Teilen auf Mastodon',
      '## Auch interessant',
    ];
    expect(dropBoilerplateBlocks([...prose, ...tail])).toEqual(prose);
  });

  it('stay when they are sentences, lists, tables or a heading over a sentence', () => {
    const tail = [
      'Viel Spaß beim Radeln!',
      '## Fazit',
      'Es lohnt sich.',
      'Öffnungszeiten:\n- Montag bis Freitag',
      '| Tag | Zeit |\n| --- | --- |\n| Mo | 8–18 |',
      '新的自行车道已经开放。',
    ];
    expect(dropBoilerplateBlocks([...prose, ...tail])).toEqual([...prose, ...tail]);
  });

  it('before the last paragraph of prose, short lines stay', () => {
    const blocks = ['Kontakt:', 'Titelbild: Stadt Beispiel', ...prose];
    expect(dropBoilerplateBlocks(blocks)).toEqual(blocks);
  });
});

describe('lines with a date', () => {
  const prose =
    'Homeowners in the city can apply for up to $5,000 for exterior repairs while the funding lasts, the department said.';
  it('a date beside a name or a time goes; a date under a label that says what it is for stays', () => {
    const blocks = [
      prose,
      'asked Mar 8, 2021 at 14:22',
      'opublikowano: 2021-04-29 17:13',
      'Marta_K December 2, 2024, 9:10pm',
      '**Deadline to apply: March 1st, 2026**',
      'Opening day: 12 May 2026',
      prose.replace('city', 'county'),
    ];
    expect(dropBoilerplateBlocks(blocks)).toEqual([
      prose,
      '**Deadline to apply: March 1st, 2026**',
      'Opening day: 12 May 2026',
      prose.replace('city', 'county'),
    ]);
  });
});
