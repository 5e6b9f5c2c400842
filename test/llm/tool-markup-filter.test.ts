/**
 * Tool-call markup a model writes as text is dropped from the answer however the stream cuts it
 * into chunks; everything else (including `<` that opens no tag) comes through unchanged.
 */
import { describe, expect, it } from 'vitest';
import { ToolMarkupFilter } from '../../src/llm/tool-markup-filter.js';

const CASES: Array<[string, string]> = [
  ['Plain answer without any markup.', 'Plain answer without any markup.'],
  ['a < b and <b>bold</b> stay', 'a < b and <b>bold</b> stay'],
  [
    'Let me look. <tool_call>{"name": "web_search", "arguments": {"q": "a < b"}}</tool_call> Done.',
    'Let me look.  Done.',
  ],
  ['x <function_call>{}</function_call>y<tool_call>open to the end', 'x y'],
  ['ends with a lone <', 'ends with a lone <'],
  ['ends with <tool_c', 'ends with <tool_c'],
];

function run(text: string, cuts: number[]): { out: string; chunks: string[] } {
  const filter = new ToolMarkupFilter();
  const chunks: string[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    chunks.push(filter.push(text.slice(from, cut)));
    from = cut;
  }
  chunks.push(filter.end());
  return { out: chunks.join(''), chunks };
}

describe('ToolMarkupFilter', () => {
  it('drops tool-call markup and keeps everything else, for every way of cutting the stream', () => {
    for (const [text, visible] of CASES) {
      expect(run(text, []).out).toBe(visible);
      for (let a = 1; a < text.length; a++) {
        expect(run(text, [a]).out, `cut at ${a}: ${text}`).toBe(visible);
        for (let b = a + 1; b < text.length; b += 3) expect(run(text, [a, b]).out).toBe(visible);
      }
      // One character per chunk, as a slow stream sends it.
      expect(
        run(
          text,
          Array.from({ length: text.length - 1 }, (_, i) => i + 1),
        ).out,
      ).toBe(visible);
    }
  });

  it('passes text without `<` through at once, holding nothing back', () => {
    const { chunks } = run('Hello, world. More text', [6, 13]);
    expect(chunks).toEqual(['Hello,', ' world.', ' More text', '']);
  });
});
