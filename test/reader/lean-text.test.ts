/**
 * What the model pays for links: a link keeps its text in the sentence as plain words (a marker
 * inside the sentence would split it for anything that looks for its words) and its target goes to
 * a numbered list at the end with that text as its title (`[L3]: https://… "text"`: never a bare
 * number, which the answer would take for a source to cite), only for links in the text it gets; anchors into the
 * page itself, links within its own site and URLs written as their own text keep only their text. The budget counts the list;
 * passages are ranked on the words of the text, not of its URLs, and a long block is never cut
 * inside a link, a bold run or a code span.
 */
import { describe, expect, it } from 'vitest';
import { selectPassages } from '../../src/reader/passages.js';

const PAGE = 'https://news.example/2026/harbour';

describe('links in the text the model reads', () => {
  it('keep their text in the sentence as plain words and list their targets once, numbered and titled, at the end', () => {
    const { text, links } = selectPassages(
      [
        'The [harbour board](https://harbour.example/board) met on Monday and the [harbour board](https://harbour.example/board) voted.',
        'See [the minutes](https://harbour.example/minutes%20%282026%29) and [the map above](https://news.example/2026/harbour#map).',
        'Source: [harbour.example/board](https://harbour.example/board/).',
        'Back to [Harbour News](https://news.example/) [¶](https://news.example/2026/harbour-vote)',
      ],
      { maxChars: 8_000, pageUrl: PAGE },
    );
    expect(text).toBe(
      [
        'The harbour board met on Monday and the harbour board voted.',
        'See the minutes and the map above.',
        'Source: harbour.example/board.',
        'Back to Harbour News ¶',
        '[L1]: https://harbour.example/board "harbour board"\n[L2]: https://harbour.example/minutes%20%282026%29 "the minutes"',
      ].join('\n\n'),
    );
    // Nothing in it reads as a citation marker ([1], [2][3]) to the answer or to Scout's citation parser.
    expect(text).not.toMatch(/(?<!\[)\[\d{1,3}\](?!\()/);
    expect(links).toEqual(['https://harbour.example/board', 'https://harbour.example/minutes%20%282026%29']);
  });

  it("keep only their text when they lead within the page's own site (www. or not); other sites' are listed", () => {
    const { text, links } = selectPassages(
      [
        'Read our [guide to tides](https://news.example/guides/tides) and [the archive](https://www.news.example/archive?year=2025).',
        'The figures come from the [port authority](https://port.example/report-2026) and [its blog](https://blog.news.example/port).',
      ],
      { maxChars: 8_000, pageUrl: PAGE },
    );
    expect(text).toBe(
      [
        'Read our guide to tides and the archive.',
        'The figures come from the port authority and its blog.',
        '[L1]: https://port.example/report-2026 "port authority"\n[L2]: https://blog.news.example/port "its blog"',
      ].join('\n\n'),
    );
    expect(links).toEqual(['https://port.example/report-2026', 'https://blog.news.example/port']);
  });

  it('lists only the targets of the links in the passages chosen, numbered from 1, within the budget', () => {
    const filler = (i: number) =>
      `Paragraph ${i} tells of quays, cranes and tides in plain words, long enough to be prose on its own here.`;
    const blocks = [
      ...Array.from({ length: 60 }, (_, i) =>
        i === 40
          ? 'The ferry timetable changes in April, says the [port authority](https://port.example/notice-2026).'
          : `${filler(i)} More at [page ${i}](https://elsewhere.example/very/long/path/to/article-number-${i}).`,
      ),
    ];
    const { text, mode } = selectPassages(blocks, { maxChars: 1_500, focus: 'ferry timetable April' });
    expect(mode).toBe('focus');
    expect(text.length).toBeLessThanOrEqual(1_500);
    expect(text).toContain('says the port authority.');
    const [body, listed] = [text.slice(0, text.lastIndexOf('\n\n')), text.split('\n\n').pop() as string];
    const entries = listed.split('\n');
    // Numbered from 1 in order, each a target and the text of its link, which the passages chosen hold.
    entries.forEach((entry, i) => {
      const [, n, title] = /^\[L(\d+)\]: https:\/\/\S+ "([^"]+)"$/.exec(entry) ?? [];
      expect(Number(n), entry).toBe(i + 1);
      expect(body).toContain(title);
    });
    expect(listed).toContain('https://port.example/notice-2026 "port authority"');
  });

  it('keeps at most a tenth of the budget for the list of targets when the text does not fit: the text comes first', () => {
    const blocks = Array.from(
      { length: 80 },
      (_, i) =>
        `Paragraph ${i} says what the harbour board decided about berth ${i}, as reported in [the minutes of meeting ${i}](https://harbour.example/minutes/2026/meeting-${i}).`,
    );
    const { text } = selectPassages(blocks, { maxChars: 3_000, part: 1 });
    const body = text.slice(0, text.indexOf('\n\n[L1]: '));
    expect(body.length).toBeGreaterThanOrEqual(2_400);
    expect(text.length).toBeLessThanOrEqual(3_000);
  });

  it('ranks by what the text says, not by the words of its link targets', () => {
    const blocks = [
      'Opening paragraph about the town and its harbour, where nothing in particular is said about fees.',
      ...Array.from(
        { length: 40 },
        (_, i) =>
          `Note ${i} on mooring, tides and moorings in the [guide](https://port.example/docking-fees-tariff-${i}) written for visiting sailors this year.`,
      ),
      'Docking fees rise to 40 euros a night from May, the harbour master said.',
    ];
    const { text } = selectPassages(blocks, { maxChars: 600, focus: 'docking fees tariff' });
    expect(text).toContain('Docking fees rise to 40 euros');
  });

  it('never cuts a long block inside a link, a bold run or a code span', () => {
    const sentence = (i: number) =>
      `Sentence ${i} has **a bold stretch of several words** and [a link with many words in it](https://x.example/${i}) and \`a code span\` too.`;
    const wall = Array.from({ length: 40 }, (_, i) => sentence(i))
      .join(' ')
      .replace(/\. /g, ', ');
    const { text } = selectPassages([wall], { maxChars: 2_000, part: 1 });
    const pieces = text.split('\n\n').filter((b) => !b.startsWith('[…') && !/^\[L\d+\]: /.test(b));
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect((piece.match(/\*\*/g) ?? []).length % 2, piece).toBe(0);
      expect((piece.match(/`/g) ?? []).length % 2, piece).toBe(0);
      expect((piece.match(/\[/g) ?? []).length, piece).toBe((piece.match(/\]/g) ?? []).length);
    }
  });
});
