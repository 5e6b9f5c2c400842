/**
 * A page's sentences reach the model as the page writes them: Markdown syntax stays where it carries
 * structure (headings, lists, tables, a label set in bold on its own line) and stays out of the
 * middle of a sentence, where it tells the model little and splits the sentence for anything that
 * looks for its words (a search of the text, a quote checked against the page).
 */
import { describe, expect, it } from 'vitest';
import { extractArticle } from '../../src/reader/extract-article.js';

const URL = 'https://blog.example/eintrag';

function page(body: string): string {
  return `<!doctype html><html lang="de"><head><title>Wurmkiste</title></head><body><main><article>${body}</article></main></body></html>`;
}

const PROSE = [
  'Wer wenig Platz hat, kann trotzdem Küchenabfälle kompostieren, und zwar das ganze Jahr über in der Wohnung.',
  'Die Würmer fressen Gemüsereste, Kaffeesatz und Eierschalen und machen daraus feinen, dunklen Humus für Balkon und Garten.',
  'Nach drei Monaten ist die erste Ernte fertig, sie riecht nach Waldboden und nicht nach Abfall, wenn die Kiste gut belüftet ist.',
];

describe('emphasis inside sentences', () => {
  it('bold words inside a sentence are written as plain words', () => {
    const html = page(
      `<p>${PROSE[0]?.replace('Küchenabfälle', '<strong>Küchenabfälle</strong>')} In einer <b>Wurmkiste</b> verwandeln sie sich in Humus.</p><p>${PROSE[1]}</p><p>${PROSE[2]}</p>`,
    );
    const text = extractArticle(html, URL).blocks.join('\n\n');
    expect(text).toContain(`${PROSE[0]} In einer Wurmkiste verwandeln sie sich in Humus.`);
    expect(text).not.toContain('**');
  });

  it('a label set in bold on its own line keeps its bold; bold in headings and table cells goes', () => {
    const html = page(
      `<p><strong>Das braucht man:</strong></p><ul><li><b>Kiste</b> aus Holz</li><li>Würmer</li></ul><h2><strong>Pflege</strong> der Kiste</h2><p>${PROSE[1]}</p><p>${PROSE[2]}</p><table><tr><th>Monat</th><th>Arbeit</th></tr><tr><td><b>März</b></td><td>füttern</td></tr></table>`,
    );
    const text = extractArticle(html, URL).blocks.join('\n\n');
    expect(text).toContain('**Das braucht man:**');
    expect(text).toContain('- Kiste aus Holz');
    expect(text).toContain('## Pflege der Kiste');
    expect(text).toContain('| März | füttern |');
  });
});

describe('numbers the page writes at the start of a line', () => {
  it('stay text (escaped, as CommonMark writes them); a list the page marks up keeps its numbers as a list', () => {
    const html = page(
      `<p>1. Weniger Platz, mehr Humus</p><p>${PROSE[0]}<br>2. ${PROSE[1]}</p><p>${PROSE[2]}</p><ol><li>Kiste</li><li>Würmer</li></ol>`,
    );
    const blocks = extractArticle(html, URL).blocks;
    expect(blocks).toContain('1\\. Weniger Platz, mehr Humus');
    expect(blocks).toContain(`${PROSE[0]}\n2\\. ${PROSE[1]}`);
    expect(blocks).toContain('1. Kiste\n2. Würmer');
  });
});

describe('table cells', () => {
  // Prose enough around the table that no cell holds half the page (such a cell is a layout's).
  const prose = Array.from(
    { length: 12 },
    (_, i) => `<p>${i}. ${PROSE[i % 3]} ${PROSE[(i + 1) % 3]}</p>`,
  ).join('');
  const schedule = (resources: string) =>
    page(
      `${prose}<table><tr><th>Datum</th><th>Thema</th><th>Lektüre</th></tr><tr><td>6. Sep</td><td>Tensoren</td><td>${resources}</td></tr><tr><td>11. Sep</td><td>Momente</td><td>Skript</td></tr></table>`,
    );

  it('a cell of many links keeps all its text: its length is what a reader sees, not its Markdown', () => {
    // 30 cited papers: about 450 characters of text, over 1,400 of Markdown with their addresses.
    const papers = Array.from(
      { length: 30 },
      (_, i) => `<a href="https://papers.example/abs/2026.${1000 + i}">[P${i}]</a>`,
    );
    const text = extractArticle(schedule(`Siehe ${papers.join(', ')} und das Buch.`), URL).blocks.join(
      '\n\n',
    );
    expect(text).toContain('Siehe [\\[P0\\]](https://papers.example/abs/2026.1000)');
    expect(text).toContain('[\\[P29\\]](https://papers.example/abs/2026.1029)');
    expect(text).toContain('und das Buch. |');
    expect(text).toContain('| 11. Sep | Momente | Skript |');
  });

  it('an essay in a cell is cut at a word, never inside a link, and the rows after it stay whole', () => {
    const essay = Array.from(
      { length: 40 },
      (_, i) => `Satz ${i} über <a href="https://papers.example/${i}">Tensoren und Momente</a> im Detail.`,
    );
    const text = extractArticle(schedule(essay.join(' ')), URL).blocks.join('\n\n');
    const row = text.split('\n').find((line) => line.startsWith('| 6. Sep')) ?? '';
    expect(row).toMatch(/ … \|$/);
    // Every link that was opened was closed: no `[` without its `](…)`.
    expect(row.split('[').length).toBe(row.split('](').length);
    expect(row.length).toBeLessThan(1_200 + 40 * 40);
    expect(text).toContain('| 11. Sep | Momente | Skript |');
  });
});

describe('characters a browser never shows', () => {
  it('soft hyphens, zero-width spaces and word joiners leave the words whole; zero-width joiners stay', () => {
    // German sites set &shy; in long words for line breaking: "Wäh&shy;rend" reads "Während".
    const hyphenated = (PROSE[0] ?? '')
      .replace('Küchenabfälle', 'Küchen&shy;ab\u00adfälle')
      .replace('trotzdem', 'trotz\u200bdem\u2060');
    const html = page(`<p>${hyphenated}</p><p>${PROSE[1]}</p><p>${PROSE[2]} 👩\u200d🌾</p>`);
    const text = extractArticle(html, URL).blocks.join('\n\n');
    expect(text).toContain(PROSE[0]);
    expect(text).toContain('👩\u200d🌾');
    expect(text).not.toMatch(/[\u00ad\u200b\u2060]/);
  });

  it("a ruby's reading set above the text (furigana) is not run into the words it annotates", () => {
    const sentence = '子どもへの虐待をなくすための法律ができました。';
    const ruby = sentence
      .replace('子', '<ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>')
      .replace('虐待', '<ruby>虐待<rt>ぎゃくたい</rt></ruby>')
      .replace('法律', '<ruby>法律<rt>ほうりつ</rt></ruby>');
    const html = page(`<p>${ruby}</p><p>${PROSE[1]}</p><p>${PROSE[2]}</p>`);
    const text = extractArticle(html, URL).blocks.join('\n\n');
    expect(text).toContain(sentence);
    expect(text).not.toContain('ぎゃくたい');
  });
});

describe('words set apart inside a sentence', () => {
  it("a news agency's dateline in a span named for it opens the first sentence, as the page shows it", () => {
    const html = page(
      `<p><span class="dateline">KÖLN –</span> ${PROSE[0]}</p><p>${PROSE[1]}</p><p>${PROSE[2]}</p><div class="share-bar"><a href="https://x.example/share">Teilen</a></div>`,
    );
    const text = extractArticle(html, URL).blocks.join('\n\n');
    expect(text).toContain(`KÖLN – ${PROSE[0]}`);
    expect(text).not.toContain('Teilen');
  });
});
