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
