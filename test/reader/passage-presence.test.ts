import { describe, expect, it } from 'vitest';
import { countPassages, isDevPage, normaliseSpace, passageScore } from './passage-presence.js';

describe('passage-presence metric (trafilatura evaluation corpus)', () => {
  const item = {
    with: ['Die GEMA dreht  völlig\nam Zeiger!', 'Zweiter Absatz des Textes', 'Schluss'],
    without: ['Impressum', 'Teilen auf Twitter'],
  };

  it('counts passages found and missing after normalising whitespace on both sides', () => {
    const text = '# Titel\n\nDie GEMA dreht völlig am\tZeiger! Mehr.\n\nSchluss\n\nImpressum · Kontakt';
    // Found: the first (whitespace differs) and the third; missing: the second.
    // Boilerplate found: Impressum; absent: the share line.
    expect(countPassages(item, text)).toEqual({ tp: 2, fn: 1, fp: 1, tn: 1 });
  });

  it('matches case-sensitively and as plain substrings, Markdown syntax and all', () => {
    expect(countPassages(item, 'die gema dreht völlig am zeiger!').tp).toBe(0);
    // Emphasis inside a sentence splits the passage, as it would for the benchmark.
    expect(countPassages(item, 'Die GEMA dreht **völlig** am Zeiger!').tp).toBe(0);
    expect(countPassages(item, 'x Schlussfolgerung').tp).toBe(1);
  });

  it('counts a failed extraction as finding nothing', () => {
    expect(countPassages(item, undefined)).toEqual({ tp: 0, fn: 3, fp: 0, tn: 2 });
  });

  it('scores over summed counts, not averaged per page', () => {
    const score = passageScore([
      { tp: 3, fn: 0, fp: 1, tn: 1 },
      { tp: 1, fn: 3, fp: 0, tn: 2 },
    ]);
    expect(score).toMatchObject({ tp: 4, fn: 3, fp: 1, tn: 3 });
    expect(score.precision).toBeCloseTo(4 / 5, 12);
    expect(score.recall).toBeCloseTo(4 / 7, 12);
    expect(score.f1).toBeCloseTo(8 / 12, 12);
    expect(passageScore([])).toMatchObject({ precision: 0, recall: 0, f1: 0 });
  });

  it('normalises whitespace as eval_common.norm does', () => {
    expect(normaliseSpace('  a\n\n b\u00a0c\t')).toBe('a b c');
  });

  it('splits pages by the first hex digit of their URL’s SHA-1', () => {
    // sha1('https://example.com/a') = 'c4ed…', sha1('https://example.com/b') = '69a4…'.
    expect(isDevPage('https://example.com/a')).toBe(false);
    expect(isDevPage('https://example.com/b')).toBe(true);
  });
});
