/**
 * A page cut to a token budget keeps its source line and header and a head of its text, cut where a
 * paragraph, line or sentence ends, and says so in a note.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import type { Observation } from '../../src/modes/turn/observations.js';
import { shortenPage } from '../../src/modes/turn/shorten-page.js';

function page(text: string): Observation {
  return {
    tool: 'fetch_url',
    input: 'https://example.com/a',
    text: `Source [4]\nA report · Example Times\n\n${text}`,
    isError: false,
    isEmpty: false,
    isPage: true,
    sources: [{ n: 4, title: 'A report', url: 'https://example.com/a' }],
  };
}

const sentences = Array.from({ length: 60 }, (_, i) => `第${i + 1}句说明了港口在第${i + 1}年的情况。`).join(
  '',
);

describe('shortenPage', () => {
  it('cuts one long Chinese paragraph after a sentence, within the budget', () => {
    const shortened = shortenPage(page(sentences), 200, countTokens, 'answer');
    const [header, kept, note] = shortened.text.split('\n\n');
    expect(header).toBe('Source [4]\nA report · Example Times');
    expect(kept).toMatch(/。$/);
    expect(sentences.startsWith(kept ?? '')).toBe(true);
    expect(countTokens(kept ?? '')).toBeLessThanOrEqual(200);
    expect(countTokens(kept ?? '')).toBeGreaterThan(150);
    expect(note).toBe('[Shortened to fit the context window: the rest of source [4] is left out.]');
    expect(shortened.sources).toEqual(page('').sources);
  });

  it('keeps only the header when the budget is too small to hold anything worth reading', () => {
    const shortened = shortenPage(page(sentences), 10, countTokens, 'function-call');
    expect(shortened.text).toBe(
      'Source [4]\nA report · Example Times\n\n[Shortened to fit the context window: the rest of source [4] is left out. To read more of it, call fetch_url with its URL and part=1, 2, … (the page in order).]',
    );
  });

  it('names the parts fetch_url said the page has, so the function-call model asks for ones that exist', () => {
    const note = (parts: number) =>
      shortenPage({ ...page(sentences), parts }, 100, countTokens, 'function-call')
        .text.split('\n\n')
        .at(-1);
    expect(note(3)).toBe(
      '[Shortened to fit the context window: the rest of source [4] is left out. To read more of it, call fetch_url with its URL and part=1…3 (the page in order).]',
    );
    expect(note(1)).toBe(
      '[Shortened to fit the context window: the rest of source [4] is left out. To read more of it, call fetch_url with its URL and part=1 (the whole page).]',
    );
    // `part` reaches 50: a page of more parts is named as far as a call can read it.
    expect(note(120)).toBe(
      '[Shortened to fit the context window: the rest of source [4] is left out. To read more of it, call fetch_url with its URL and part=1…50 (the first 50 of its 120 parts, in order).]',
    );
  });

  it('never leaves half a surrogate pair where a text has no boundary at all', () => {
    const shortened = shortenPage(page('😀'.repeat(400)), 101, countTokens, 'answer');
    const kept = shortened.text.split('\n\n')[1] ?? '';
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toMatch(/^(😀)+$/u);
  });
});
