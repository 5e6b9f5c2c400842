import { describe, expect, it } from 'vitest';
import { normalizeQuery, truncateAtWord } from '../../src/search/clean-results.js';
import { formatSearchContext, formatToolResults } from '../../src/search/format-results.js';

describe('formatting results for models', () => {
  const sources = [
    { n: 4, title: 'Tokio', url: 'https://tokio.rs/', snippet: 'An async\nruntime.' },
    { n: 5, title: 'Async book', url: 'https://rust-lang.github.io/async-book/', snippet: '' },
  ];

  it('chat injection: numbered with the global source numbers, title, URL and snippet', () => {
    expect(formatSearchContext(sources, { query: 'rust async' })).toBe(
      'Web search results for "rust async":\n\n' +
        '[4] Tokio\nURL: https://tokio.rs/\nAn async runtime.\n\n' +
        '[5] Async book\nURL: https://rust-lang.github.io/async-book/',
    );
  });

  it('tool text: compact, numbered locally unless numbers are given', () => {
    const plain = sources.map(({ n: _n, ...rest }) => rest);
    expect(formatToolResults(plain)).toBe(
      '[1] Tokio — https://tokio.rs/\n    An async runtime.\n[2] Async book — https://rust-lang.github.io/async-book/',
    );
    expect(formatToolResults(sources).startsWith('[4] Tokio')).toBe(true);
    expect(formatToolResults([])).toBe('No results found.');
  });

  it('truncation and query normalisation', () => {
    expect(truncateAtWord('short', 200)).toBe('short');
    const cut = truncateAtWord('alpha beta gamma delta', 12);
    expect(cut).toBe('alpha beta…');
    expect(normalizeQuery('  Rust \n ASYNC  ')).toBe('rust async');
  });
});
