import { describe, expect, it } from 'vitest';
import { corpusScore, markdownToPlain, matchPage, scorePage, shingles, tokenize } from './shingle-f1.js';

describe('shingle metric (article-extraction-benchmark)', () => {
  it('scores identical texts 1 and disjoint texts 0', () => {
    const text = 'The council voted seven to two on Tuesday night to fund the seawall.';
    expect(scorePage(text, text)).toMatchObject({ precision: 1, recall: 1, f1: 1 });
    expect(scorePage(text, 'Lorem ipsum dolor sit amet, consectetur adipiscing elit.')).toMatchObject({
      precision: 0,
      recall: 0,
      f1: 0,
    });
  });

  it('gives 0.5 when half the shingles are shared', () => {
    // Expected shingles: abcd bcde cdef defg; predicted: abcd bcde cdex dexy.
    const score = scorePage('a b c d e f g', 'a b c d e x y');
    expect(score.precision).toBe(0.5);
    expect(score.recall).toBe(0.5);
    expect(score.f1).toBe(0.5);
  });

  it('charges boilerplate to precision and lost text to recall', () => {
    const withMenu = scorePage('one two three four five', 'one two three four five six seven');
    expect(withMenu.precision).toBe(0.5);
    expect(withMenu.recall).toBe(1);
    expect(withMenu.f1).toBeCloseTo(2 / 3, 12);
    const cut = scorePage('one two three four five six seven', 'one two three four five');
    expect(cut).toMatchObject({ precision: 1, recall: 0.5 });
  });

  it('counts shingles as a multiset and normalises counts per page', () => {
    expect(shingles('a b c d a b c d').get('a b c d')).toBe(2);
    // 1 shared, 4 missing: tp, fp, fn normalised to sum to 1.
    expect(matchPage('a b c d a b c d', 'a b c d')).toEqual({ tp: 0.2, fp: 0, fn: 0.8 });
    expect(scorePage('a b c d a b c d', 'a b c d')).toMatchObject({ precision: 1, recall: 0.2 });
  });

  it('makes one shingle of a text shorter than four words, none of an empty one', () => {
    expect([...shingles('hello world').keys()]).toEqual(['hello world']);
    expect(shingles('  ,.; ').size).toBe(0);
    expect(scorePage('hello world', 'hello world').f1).toBe(1);
    expect(scorePage('hello world', 'hello there').f1).toBe(0);
  });

  it('ignores case and punctuation, and splits CJK text into characters', () => {
    expect(scorePage('Hello, World! Foo bar.', 'hello world — foo (bar)').f1).toBe(1);
    expect(tokenize('Straße über snake_case 3.14')).toEqual(['straße', 'über', 'snake_case', '3', '14']);
    expect(tokenize('港口新闻，今天。')).toEqual(['港', '口', '新', '闻', '今', '天']);
    expect(scorePage('中文测试页面', '中文 测试 页面').f1).toBe(1);
    expect(scorePage('中文测试页面', '中文测试页').recall).toBe(2 / 3);
  });

  it('averages precision and recall over pages with the benchmark conventions', () => {
    const pages = [
      matchPage('a b c d e f g', 'a b c d e f g'), // P 1, R 1
      matchPage('a b c d e f g', 'a b c d e x y'), // P .5, R .5
      matchPage('a b c d e f g', ''), // nothing predicted: R 0, left out of precision
      matchPage('', ''), // nothing expected, nothing predicted: left out of both
    ];
    const score = corpusScore(pages);
    expect(score.precision).toBe(0.75);
    expect(score.recall).toBe(0.5);
    // F1 of the means, not the mean of per-page F1s.
    expect(score.f1).toBeCloseTo((2 * 0.75 * 0.5) / 1.25, 12);
  });
});

describe('markdownToPlain', () => {
  it('keeps link text and drops URLs, images, heading and emphasis markers', () => {
    const md =
      '## The *new* seawall\n\nSome **bold** and _stressed_ words, a [link to the plan](https://x.test/plan_(2024) "Plan") ' +
      'and ![a harbour photo](https://x.test/p.jpg) here.';
    expect(markdownToPlain(md)).toBe(
      'The new seawall\n\nSome bold and stressed words, a link to the plan and  here.',
    );
  });

  it('keeps a lone asterisk or underscore: only pairs are emphasis (CommonMark)', () => {
    expect(
      markdownToPlain('Für inter* Personen, 2*3 und snake_case *gilt* das.\n\n*Mit der Befragung des DGB'),
    ).toBe('Für inter* Personen, 2*3 und snake_case gilt das.\n\n*Mit der Befragung des DGB');
  });

  it("keeps a heading's number and an escaped number: they are text, not list markers", () => {
    expect(markdownToPlain('## 1. Eat less\n\n1\\. A line the page numbered itself')).toBe(
      '1. Eat less\n\n1. A line the page numbered itself',
    );
  });

  it('drops quote markers, bullets, numbers and table syntax', () => {
    const md = [
      '> Quoted line',
      '> > nested',
      '',
      '- first item',
      '  * nested item',
      '1. numbered',
      '12) other style',
      '- [x] done task',
      '',
      '| Year | Rate |',
      '|:-----|-----:|',
      '| 2023 | 4.5% |',
      '',
      '---',
    ].join('\n');
    expect(markdownToPlain(md)).toBe(
      [
        'Quoted line',
        'nested',
        '',
        'first item',
        'nested item',
        'numbered',
        'other style',
        'done task',
        '',
        'Year  Rate',
        '',
        '2023  4.5%',
      ].join('\n'),
    );
  });

  it('keeps code verbatim: fenced blocks and inline spans', () => {
    const md =
      'Call `__init__` or `a * b`, not *this*.\n\n```python\ndef __init__(self, *args):\n    return 2*3\n```';
    expect(markdownToPlain(md)).toBe(
      'Call __init__ or a * b, not this.\n\ndef __init__(self, *args):\n    return 2*3',
    );
  });

  it('leaves snake_case, 2*3 and escaped punctuation as words', () => {
    expect(markdownToPlain('use max_retries = 2*3 \\* 4 \\_x\\_')).toBe('use max_retries = 2*3 * 4 _x_');
  });

  it('scores a Markdown rendering of the expected text as a perfect match', () => {
    const expected =
      'Rates rose\n\nThe bank raised its rate to 4.5 percent, its highest since 2008.\n\nYear\nRate\n2023\n4.5%';
    const md =
      '# Rates rose\n\nThe bank [raised its rate](https://bank.test/r) to **4.5 percent**, its highest since 2008.\n\n| Year | Rate |\n|---|---|\n| 2023 | 4.5% |';
    expect(scorePage(expected, markdownToPlain(md)).f1).toBe(1);
  });
});
