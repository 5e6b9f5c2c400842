import { describe, expect, it } from 'vitest';
import { meanWordScore, scoreWordPage, snippetRate, wordF1, words } from './word-f1.js';

describe('word F1 (WCXB evaluate.py)', () => {
  it('splits words as re.findall(r"\\w+", text.lower()) does (outputs taken from Python 3)', () => {
    expect(words("Don't stop-me—now")).toEqual(['don', 't', 'stop', 'me', 'now']);
    expect(words('Straße café_au_lait 42 naïve')).toEqual(['straße', 'café_au_lait', '42', 'naïve']);
    // Final sigma when lowercasing; numerals that are not digits are word characters.
    expect(words('ΟΔΟΣ Σοφία')).toEqual(['οδος', 'σοφία']);
    expect(words('e\u0301te ½ Ⅻ ٣ x²')).toEqual(['e', 'te', '½', 'ⅻ', '٣', 'x²']);
    // Combining marks are not \w: Devanagari vowel signs and viramas split words.
    expect(words('नमस्ते दुनिया')).toEqual(['नमस', 'त', 'द', 'न', 'य']);
    expect(words('')).toEqual([]);
  });

  it('counts the overlap as a multiset intersection', () => {
    // pred: the ×3, cat, sat, on, mat, end (8 words); ref: the, cat, sat, on, a, mat (6 words).
    // Overlap: the 1 (min of 3 and 1), cat, sat, on, mat = 5.
    const score = wordF1('The cat sat on the mat, the end.', 'The cat sat on a mat');
    expect(score.precision).toBeCloseTo(5 / 8, 12);
    expect(score.recall).toBeCloseTo(5 / 6, 12);
    // 2 · (5/8) · (5/6) / (5/8 + 5/6) = 5/7.
    expect(score.f1).toBeCloseTo(5 / 7, 12);
  });

  it('scores empty texts as evaluate.py does', () => {
    expect(wordF1('', '')).toEqual({ precision: 1, recall: 1, f1: 1 });
    expect(wordF1('—', '...')).toEqual({ precision: 1, recall: 1, f1: 1 });
    expect(wordF1('some words', '')).toEqual({ precision: 0, recall: 0, f1: 0 });
    expect(wordF1('', 'the truth')).toEqual({ precision: 0, recall: 0, f1: 0 });
    expect(wordF1('other words', 'the truth')).toEqual({ precision: 0, recall: 0, f1: 0 });
  });

  it('finds snippets as lowercased plain substrings, 1 for an empty list', () => {
    const text = 'Home | The Quick brown fox jumps.\nLogin';
    expect(snippetRate(text, ['quick BROWN fox', 'fox jumps over', 'login'])).toBeCloseTo(2 / 3, 12);
    // No whitespace normalisation: a line break is not a space.
    expect(snippetRate(text, ['jumps. login'])).toBe(0);
    expect(snippetRate(text, [])).toBe(1);
  });

  it('averages precision, recall, F1 and snippet rates over pages', () => {
    const truth = { mainContent: 'alpha beta gamma delta', with: ['alpha beta'], without: ['menu'] };
    const a = scoreWordPage('alpha beta gamma delta', truth);
    const b = scoreWordPage('menu alpha', truth);
    expect(a).toEqual({ precision: 1, recall: 1, f1: 1, withRate: 1, withoutRate: 0 });
    // b: 2 words, 1 shared: P 1/2, R 1/4, F1 = 2 · (1/8) / (3/4) = 1/3; "alpha beta" absent; "menu" present.
    expect(b.precision).toBeCloseTo(0.5, 12);
    expect(b.recall).toBeCloseTo(0.25, 12);
    expect(b.f1).toBeCloseTo(1 / 3, 12);
    const mean = meanWordScore([a, b]);
    expect(mean.precision).toBeCloseTo(0.75, 12);
    expect(mean.recall).toBeCloseTo(0.625, 12);
    expect(mean.f1).toBeCloseTo(2 / 3, 12);
    expect(mean.withRate).toBeCloseTo(0.5, 12);
    expect(mean.withoutRate).toBeCloseTo(0.5, 12);
    expect(meanWordScore([]).f1).toBe(0);
  });
});
