import { describe, expect, it } from 'vitest';
import { say } from '../../src/i18n/say.js';
import { SourceRegistry, linkCitations } from '../../src/search/citations.js';

const r = (id: string) => ({
  title: `Title ${id}`,
  url: `https://example.com/${id}`,
  snippet: `snippet ${id}`,
});

describe('SourceRegistry', () => {
  it('numbers sources once per answer across searches; the same URL keeps its number', () => {
    const registry = new SourceRegistry();
    const first = registry.add([r('a'), r('b')]);
    const second = registry.add([r('c'), { ...r('a'), url: 'https://EXAMPLE.com/a#section' }, r('d')]);
    expect(first.map((s) => s.n)).toEqual([1, 2]);
    expect(second.map((s) => [s.n, s.url])).toEqual([
      [3, 'https://example.com/c'],
      [1, 'https://example.com/a'],
      [4, 'https://example.com/d'],
    ]);
    expect(registry.all().map((s) => s.n)).toEqual([1, 2, 3, 4]);
  });
});

describe('linkCitations', () => {
  const registry = new SourceRegistry();
  registry.add([r('a'), r('b'), r('c')]);
  const sources = registry.all();

  it('links markers and lists only cited sources in number order', () => {
    const { text, cited } = linkCitations('Rust is fast [3]. Tokio is a runtime [1].', sources, 'en');
    expect(text).toBe(
      'Rust is fast [[3]](https://example.com/c). Tokio is a runtime [[1]](https://example.com/a).\n\n' +
        '**References**\n1. [Title a](https://example.com/a)\n3. [Title c](https://example.com/c)',
    );
    expect(cited.map((s) => s.n)).toEqual([1, 3]);
  });

  it('handles [1][2], [1, 2] and [1,2]', () => {
    const { text } = linkCitations('A [1][2]. B [1, 2]. C [2,3].', sources, 'en');
    const body = text.split('\n\n')[0];
    expect(body).toBe(
      'A [[1]](https://example.com/a)[[2]](https://example.com/b). ' +
        'B [[1]](https://example.com/a)[[2]](https://example.com/b). ' +
        'C [[2]](https://example.com/b)[[3]](https://example.com/c).',
    );
  });

  it('drops numbers that match no source', () => {
    const { text, cited } = linkCitations('Claim [7]. Other [2, 9].', sources, 'en');
    expect(text.split('\n\n')[0]).toBe('Claim. Other [[2]](https://example.com/b).');
    expect(cited.map((s) => s.n)).toEqual([2]);
  });

  it('uses the Chinese heading for zh', () => {
    const { text } = linkCitations('答案[1]。', sources, 'zh');
    expect(text).toContain('**参考文献**\n1. [Title a](https://example.com/a)');
  });

  it('the user is shown the Markdown that history keeps, in either language', () => {
    for (const locale of ['en', 'zh'] as const) {
      const cited = linkCitations('Fact [1], other [3].\n```\nopen', sources, locale);
      expect(say(locale, cited.shown)).toBe(cited.text);
      const bare = linkCitations('No sources [1].', [], locale);
      expect(say(locale, bare.shown)).toBe(bare.text);
    }
  });

  it('an answer without sources gets no markers and no section', () => {
    const { text, cited } = linkCitations('Answer from memory [1] and [2].', [], 'en');
    expect(text).toBe('Answer from memory and.');
    expect(cited).toEqual([]);
  });

  it('leaves markers inside code spans and fenced blocks alone', () => {
    const answer = 'Use `arr[1]` like this [1]:\n\n```js\nconst x = arr[2];\n```\n';
    const { text } = linkCitations(answer, sources, 'en');
    expect(text).toContain('`arr[1]`');
    expect(text).toContain('const x = arr[2];');
    expect(text).toContain('like this [[1]](https://example.com/a):');
    expect(text).not.toContain('example.com/b');
  });

  it('does not re-link existing links and escapes titles and URLs', () => {
    const odd = new SourceRegistry();
    odd.add([{ title: 'A [draft] page', url: 'https://example.com/a_(b)', snippet: '' }]);
    const { text } = linkCitations('See [the docs](https://x.dev) [1].', odd.all(), 'en');
    expect(text).toContain('[the docs](https://x.dev)');
    expect(text).toContain('[[1]](https://example.com/a_%28b%29)');
    expect(text).toContain('1. [A \\[draft\\] page](https://example.com/a_%28b%29)');
  });
});

describe('an answer that ends inside a code block', () => {
  const registry = new SourceRegistry();
  registry.add([r('a')]);

  it('closes the block before References, so they are links, not code', () => {
    const answer = 'Install it as the docs say [1]:\n\n```sh\nnpm install scout\nnpm start';
    const { text } = linkCitations(answer, registry.all(), 'en');
    expect(text).toBe(
      'Install it as the docs say [[1]](https://example.com/a):\n\n```sh\nnpm install scout\nnpm start\n```\n\n' +
        '**References**\n1. [Title a](https://example.com/a)',
    );
  });

  it('closes a ~~~~ block with its own fence, and leaves closed blocks alone', () => {
    const tilde = linkCitations('See [1].\n~~~~\ncode ``` inside\n~~~', registry.all(), 'en').text;
    expect(tilde).toContain('code ``` inside\n~~~\n~~~~\n\n**References**');
    const closed = linkCitations('See [1].\n```\ncode\n```', registry.all(), 'en').text;
    expect(closed).toBe(
      'See [[1]](https://example.com/a).\n```\ncode\n```\n\n**References**\n1. [Title a](https://example.com/a)',
    );
  });

  it('shows site and date after a reference when a read page gave them', () => {
    const pages = new SourceRegistry();
    pages.add([r('a')]);
    pages.add([{ ...r('a'), site: 'Harbour Courier', published: '2026-03-14' }]);
    const { text } = linkCitations('Fact [1].', pages.all(), 'en');
    expect(text).toContain('1. [Title a](https://example.com/a) — Harbour Courier, 2026-03-14');
  });
});
