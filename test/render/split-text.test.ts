import { describe, expect, it } from 'vitest';
import { planSplit, splitContextAt, splitMessage } from '../../src/render/split-text.js';
import { codeBlock, contentOf, fenceLines, longAnswer, prng } from './markdown-samples.js';

function expectValidParts(text: string, parts: string[], limit: number): void {
  for (const part of parts) {
    expect(part.length).toBeLessThanOrEqual(limit);
    expect(part.trim().length).toBeGreaterThan(0);
    expect(fenceLines(part) % 2, `unbalanced fences in part:\n${part.slice(0, 200)}`).toBe(0);
  }
  expect(contentOf(parts.join('\n'))).toBe(contentOf(text));
}

describe('splitMessage', () => {
  it('returns short text as one part, and nothing for blank text', () => {
    expect(splitMessage('Hello **world**', 2000)).toEqual(['Hello **world**']);
    expect(splitMessage('  \n\n ', 2000)).toEqual([]);
  });

  for (const limit of [2000, 3900]) {
    it(`splits a 30,000-character answer into parts ≤ ${limit} without breaking a code block`, () => {
      const { text, codeBlocks } = longAnswer(30_000, limit);
      expect(text.length).toBeGreaterThanOrEqual(30_000);
      expect(codeBlocks.length).toBeGreaterThan(5);
      const parts = splitMessage(text, limit);
      expect(parts.length).toBeGreaterThanOrEqual(Math.ceil(text.length / limit));
      // Parts are well filled: no stub messages.
      expect(parts.length).toBeLessThanOrEqual(Math.ceil((text.length / limit) * 2) + 1);
      expectValidParts(text, parts, limit);
      // Every code block fits in a message, so each is sent whole, in one part.
      for (const block of codeBlocks) {
        expect(parts.some((part) => part.includes(block))).toBe(true);
      }
      // Cuts fall at paragraph or line boundaries here: no part ends mid-sentence.
      for (const part of parts.slice(0, -1)) expect(part).toMatch(/[.`\d)]$|Section \d+$/);
    });
  }

  it('splits a single 10,000-character code block, reopening the fence with its language', () => {
    const block = codeBlock(prng(7), 220, 'python');
    expect(block.length).toBeGreaterThan(10_000);
    const text = `Here is the script:\n\n${block}\n\nRun it with \`python main.py\`.`;
    const parts = splitMessage(text, 2000);
    expectValidParts(text, parts, 2000);
    expect(parts[0]).toBe('Here is the script:');
    const codeParts = parts.filter((p) => p.startsWith('```python\n'));
    expect(codeParts.length).toBeGreaterThanOrEqual(6);
    for (const part of codeParts.slice(0, -1)) expect(part.endsWith('\n```')).toBe(true);
    expect(parts.at(-1)).toMatch(/\n```\n\nRun it with `python main.py`\.$/);
    // Code lines are cut only between lines, never inside one.
    const lines = parts.flatMap((p) => p.split('\n')).filter((l) => l.startsWith('  const'));
    expect(lines).toEqual(block.split('\n').filter((l) => l.startsWith('  const')));
  });

  it('splits a short text the same whether or not a code fence is in it or open before it', () => {
    // Short texts without fences take a shortcut; these must still get their fence lines.
    expect(splitMessage('  \n\nintro   \n\n', 100)).toEqual(['intro']);
    expect(splitMessage('intro\n```js\nconst a = 1;', 100)).toEqual(['intro\n```js\nconst a = 1;\n```']);
    expect(splitMessage('intro\n~~~\ncode', 100)).toEqual(['intro\n~~~\ncode\n~~~']);
    const text = `${'word '.repeat(30)}\n\n\`\`\`py\n${'x = 1\n'.repeat(20)}`;
    const [first, ...rest] = planSplit(text, 120);
    const continued = planSplit(text, 120, first!.end, splitContextAt(text, first!.end));
    expect(continued.map((p) => p.text)).toEqual(rest.map((p) => p.text));
    expect(rest.at(-1)!.text.startsWith('```py')).toBe(true);
  });

  it('closes a fence left open at the end of a streamed text', () => {
    const text = 'Intro\n\n```ts\nconst a = 1;';
    expect(splitMessage(text, 100)).toEqual(['Intro\n\n```ts\nconst a = 1;\n```']);
  });

  it('keeps a code block whole in the next part rather than cutting it', () => {
    const block = codeBlock(prng(3), 20);
    const text = `${'Intro sentence here. '.repeat(40)}\n\n${block}\n\nAfter.`;
    const parts = splitMessage(text, block.length + 20);
    expect(parts.some((p) => p.includes(block))).toBe(true);
    expectValidParts(text, parts, block.length + 20);
  });

  it('never cuts a long link in half, wherever it falls', () => {
    const link = `[the official documentation page](https://example.com/${'very-long-path/'.repeat(8)}index.html?ref=scout)`;
    for (let offset = 1850; offset < 2000; offset += 7) {
      const before = 'word '.repeat(offset / 5);
      const text = `${before}${link} and some more words after it. `.repeat(2);
      const parts = splitMessage(text, 2000);
      expectValidParts(text, parts, 2000);
      expect(parts.filter((p) => p.includes(link)).length).toBe(2);
    }
  });

  it('cuts one long line at a sentence end rather than mid-sentence', () => {
    const text = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} is here and has words.`).join(
      ' ',
    );
    const parts = splitMessage(text, 500);
    expectValidParts(text, parts, 500);
    for (const part of parts.slice(0, -1)) expect(part.endsWith('words.')).toBe(true);
  });

  it('hard-cuts text without spaces (Chinese) and keeps emoji whole', () => {
    const text = '这是一个没有空格的很长的中文句子😀'.repeat(300);
    const parts = splitMessage(text, 2000);
    expectValidParts(text, parts, 2000);
    for (const part of parts) {
      expect(part).not.toMatch(/^[\udc00-\udfff]/);
      expect(part).not.toMatch(/[\ud800-\udbff]$/);
    }
    expect(parts.join('')).toBe(text);
  });

  it('keeps the invariants on random Markdown at several limits', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const { text } = longAnswer(6000, seed, 60);
      for (const limit of [120, 700, 2000]) {
        const parts = splitMessage(text, limit);
        expectValidParts(text, parts, limit);
      }
    }
  });

  it('reports source ranges so a caller can continue from a part', () => {
    const { text } = longAnswer(10_000, 5);
    const all = planSplit(text, 2000);
    const rest = planSplit(text, 2000, all[0]!.end);
    expect(rest.map((p) => p.text)).toEqual(all.slice(1).map((p) => p.text));
    expect(text.slice(all[0]!.start, all[0]!.end)).toBe(all[0]!.text);
  });

  it('rejects a limit too small to hold a reopened fence', () => {
    expect(() => splitMessage('text', 10)).toThrow(RangeError);
  });
});
