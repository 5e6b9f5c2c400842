/**
 * Unpaired surrogates never leave the renderer (issue 13, "Bad input"): the model's text, the steps
 * and the message cuts are well-formed UTF-16, whatever the input. The surfaces' side of it (fakes
 * that refuse a payload carrying one) is in test/conformance/bad-input.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { splitMessage } from '../../src/render/split-text.js';
import { answerMarkdown } from '../../src/render/turn-markdown.js';
import { emptyView, type TurnView } from '../../src/render/view.js';
import { sliceWhole, wellFormed, wellFormedView } from '../../src/render/well-formed.js';
import { contentOf, leavesFenceOpen, prng } from './markdown-samples.js';

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('sliceWhole (a length cap that never cuts a character in two)', () => {
  it('keeps a surrogate pair whole at the cut, one unit short, and leaves short text alone', () => {
    const text = `${'x'.repeat(999)}😀 and more`;
    expect(sliceWhole(text, 1000)).toBe('x'.repeat(999));
    expect(sliceWhole(text, 1001)).toBe(`${'x'.repeat(999)}😀`);
    expect(sliceWhole('short 😀', 1000)).toBe('short 😀');
    for (let max = 1; max < 40; max++) {
      const cut = sliceWhole('a😀b😀c界😀'.repeat(4), max);
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(LONE.test(cut)).toBe(false);
    }
  });
});

describe('wellFormed', () => {
  it('replaces each unpaired surrogate with U+FFFD and keeps pairs', () => {
    expect(wellFormed('a\uD83Db')).toBe('a\uFFFDb');
    expect(wellFormed('a\uDE00b')).toBe('a\uFFFDb');
    expect(wellFormed('\uDE00\uD83D')).toBe('\uFFFD\uFFFD');
    expect(wellFormed('ok 😀 界')).toBe('ok 😀 界');
    expect(wellFormed('end \uD83D')).toBe('end \uFFFD');
  });

  it('holds back a high surrogate at the end of growing text: its pair is in the next chunk', () => {
    expect(wellFormed('streaming \uD83D', true)).toBe('streaming ');
    expect(wellFormed('streaming \uD83D\uDE00', true)).toBe('streaming 😀');
    expect(wellFormed('streaming \uDE00', true)).toBe('streaming \uFFFD');
  });
});

describe('wellFormedView', () => {
  const view = (over: Partial<TurnView>): TurnView => ({ ...emptyView(), ...over });

  it('returns the same view, and the same step objects, when nothing needs replacing', () => {
    const clean = view({
      answer: 'fine 😀',
      steps: [{ id: '1', kind: 'search', title: 't', body: 'b', status: 'done', collapsed: true }],
    });
    expect(wellFormedView(clean)).toBe(clean);
    const dirty = { ...clean, answer: 'bad \uDE00', steps: [...clean.steps] };
    const fixed = wellFormedView(dirty);
    expect(fixed.answer).toBe('bad \uFFFD');
    expect(fixed.steps[0]).toBe(clean.steps[0]);
  });

  it('makes steps, sources, status, phase and error well-formed', () => {
    const fixed = wellFormedView(
      view({
        done: true,
        steps: [
          { id: '1', kind: 'search', title: 'q \uD83D', body: '\uDE00', status: 'done', collapsed: true },
        ],
        sources: [{ n: 1, title: 'page \uDE00', url: 'https://example.com', snippet: 'x\uD83Dy' }],
        status: 's\uD83D',
        phase: 'p\uDE00',
        error: 'e\uD83D',
      }),
    );
    const texts = [
      fixed.steps[0]!.title,
      fixed.steps[0]!.body,
      fixed.sources[0]!.title,
      fixed.sources[0]!.snippet!,
      fixed.status!,
      fixed.phase!,
      fixed.error!,
    ];
    for (const text of texts) expect(text).not.toMatch(LONE);
    expect(texts.every((text) => text.includes('\uFFFD'))).toBe(true);
  });

  it('a seeded property: any answer, cut for any limit, gives well-formed parts that keep its content', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rand = prng(seed);
      // Backticks only as whole fence lines or single ones (`x): the content check reads a line
      // starting with ``` as markup, so a long run of them cut in two would read as a difference.
      const units = [
        '\uD83D',
        '\uDE00',
        '😀',
        '界',
        'a',
        ' ',
        '\n',
        '\n```\n',
        '\n```a😀😀😀😀😀😀😀😀😀😀\n',
        '`x',
      ];
      let answer = '';
      const length = 50 + Math.floor(rand() * 6_000);
      while (answer.length < length) {
        const unit = units[Math.floor(rand() * units.length)]!;
        const run = rand() < 0.1 && !unit.includes('`');
        answer += run ? unit.repeat(1 + Math.floor(rand() * 300)) : unit;
      }
      // Roomy enough that a fence line is never itself cut (the content check reads fence lines as markup).
      const limit = [100, 137, 2_000][seed % 3]!;
      const markdown = answerMarkdown(wellFormedView(view({ answer, done: true, answerFinal: true })));
      const parts = splitMessage(markdown, limit);
      for (const part of parts) {
        expect(part, `seed ${seed}`).not.toMatch(LONE);
        expect(part.length, `seed ${seed}`).toBeLessThanOrEqual(limit);
        expect(leavesFenceOpen(part), `seed ${seed}`).toBe(false);
      }
      expect(contentOf(parts.join('\n')), `seed ${seed}`).toBe(contentOf(wellFormed(markdown)));
    }
  });
});
