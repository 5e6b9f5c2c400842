/**
 * Citations linked while the answer streams (issue 58 item 2): every frame a reader sees is a prefix
 * of the final text linkCitations makes of the whole answer, and a `[n]` with a known source is a
 * link as soon as it can no longer become anything else.
 */
import { describe, expect, it } from 'vitest';
import { linkCitations, SourceRegistry } from '../../src/search/citations.js';
import { LiveCitations } from '../../src/search/live-citations.js';
import type { Source } from '../../src/render/events.js';
import { startWorkClock } from '../helpers/work-clock.js';

const registry = new SourceRegistry();
registry.add(
  ['a', 'b', 'c'].map((id) => ({ title: `Title ${id}`, url: `https://example.com/${id}`, snippet: '' })),
);
const sources = registry.all();
const link = (n: number) => `[[${n}]](https://example.com/${'abc'[n - 1]})`;

/** A marker as the model writes it, outside a link (what a reader must never see for a known source). */
const RAW_MARKER = /(?<!\[)\[\d+\](?!\()/;

/** What the reader sees after each chunk: everything LiveCitations gave out so far. */
function frames(chunks: string[], from: Source[] = sources): string[] {
  const live = new LiveCitations(from);
  const seen: string[] = [];
  let shown = '';
  for (const chunk of chunks) {
    shown += live.push(chunk);
    seen.push(shown);
  }
  return seen;
}

const byChar = (text: string) => [...text];
const body = (answer: string, from: Source[] = sources) => {
  const text = linkCitations(answer, from, 'en').text;
  const references = text.indexOf('\n\n**References**');
  return references === -1 ? text : text.slice(0, references);
};

/** Every frame is a prefix of the final text, and frames only grow. */
function expectPrefixes(seen: string[], answer: string, from: Source[] = sources): void {
  const final = linkCitations(answer, from, 'en').text;
  for (const [i, frame] of seen.entries()) {
    expect(final.startsWith(frame), `frame ${i} ${JSON.stringify(frame)} of ${JSON.stringify(answer)}`).toBe(
      true,
    );
  }
}

describe('LiveCitations', () => {
  it('fed token by token, a cited answer shows links as markers close, and ends as the final body', () => {
    const answer = 'Rust is fast [3]. Tokio is a runtime [1].';
    const seen = frames(byChar(answer));
    expectPrefixes(seen, answer);
    for (const frame of seen) expect(frame).not.toMatch(RAW_MARKER);
    // The first marker is a link as soon as the character after it arrived.
    expect(seen[answer.indexOf('[3]') + 3]).toBe(`Rust is fast ${link(3)}.`);
    expect(seen.at(-1)).toBe(body(answer));
    expect(seen.at(-1)).toBe(`Rust is fast ${link(3)}. Tokio is a runtime ${link(1)}.`);
  });

  it('a marker split across chunks is held until it is complete and what follows it arrived', () => {
    expect(frames(['See [', '1', '][', '2', '] and', ' more.'])).toEqual([
      'See',
      'See',
      // `[1]` is settled once the next character is not `(` (a link the model wrote).
      `See ${link(1)}`,
      `See ${link(1)}`,
      `See ${link(1)}${link(2)} and`,
      `See ${link(1)}${link(2)} and more.`,
    ]);
    expect(frames(['A [1,', ' 2', '] b'])).toEqual(['A', 'A', `A ${link(1)}${link(2)} b`]);
  });

  it('a marker with no known source disappears with its spaces, never shown raw first', () => {
    const answer = 'Claim [7]. Other [2, 9]. Last [9]';
    const seen = frames(byChar(answer));
    expectPrefixes(seen, answer);
    for (const frame of seen) expect(frame).not.toMatch(/(?<!\[)\[[279]/);
    expect(seen.at(-1)).toBe(`Claim. Other ${link(2)}. Last`);
    expect(body(answer)).toBe(seen.at(-1));
    // Without sources every marker goes, as in the final text.
    const bare = frames(byChar('From memory [1] and [2].'), []);
    expect(bare.at(-1)).toBe('From memory and.');
    expectPrefixes(bare, 'From memory [1] and [2].', []);
  });

  it('markers inside code spans and blocks stay as written, also while the span is still open', () => {
    const answer = 'Use `a[1]` and [1].\n```\nx = y[2]\n```\nDone [2].';
    const seen = frames(byChar(answer));
    expectPrefixes(seen, answer);
    for (const frame of seen) expect(frame).not.toContain('a[[1]]');
    for (const frame of seen) expect(frame).not.toContain('y[[2]]');
    // Text without markers shows while the span is open; the marker in it waits for the backtick.
    expect(seen).toContain('Use `a');
    expect(seen.at(-1)).toBe(`Use \`a[1]\` and ${link(1)}.\n\`\`\`\nx = y[2]\n\`\`\`\nDone ${link(2)}.`);
  });

  it('a backtick no backtick closes on its line leaves the marker after it prose, linked', () => {
    const answer = 'Price 5` off [1] today\nNext.';
    const seen = frames(byChar(answer));
    expectPrefixes(seen, answer);
    expect(seen).toContain('Price 5` off');
    expect(seen.at(-1)).toBe(`Price 5\` off ${link(1)} today\nNext.`);
  });

  it('a link the model wrote, and a doubled bracket, are not markers', () => {
    const answer = 'See [1](https://x.dev) and [[2]] now.';
    const seen = frames(byChar(answer));
    expectPrefixes(seen, answer);
    for (const frame of seen) expect(frame).not.toContain('[[1]]');
    expect(seen.at(-1)).toBe(answer);
  });

  it('a list marker broken over a line is linked whole', () => {
    const answer = 'Both [1,\n2] agree.\nNext line.';
    const seen = frames(byChar(answer));
    expectPrefixes(seen, answer);
    expect(seen.at(-1)).toBe(body(answer));
  });

  it('any answer, cut into any chunks: every frame is a prefix of the final text, and it all shows', () => {
    const pieces = [
      'word',
      ' ',
      '  ',
      '\n',
      '\n\n',
      '[1]',
      '[2]',
      '[3]',
      '[9]',
      '[1, 2]',
      '[2,9]',
      '[',
      ']',
      '1',
      ',',
      '(',
      ')',
      '`',
      '```',
      '~~~',
      '~',
      '[[1]]',
      '[1](u)',
      '.',
      '\t',
    ];
    let seed = 58;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    for (let round = 0; round < 1_500; round++) {
      const length = 1 + random(24);
      const answer = Array.from({ length }, () => pieces[random(pieces.length)]).join('');
      const chunks: string[] = [];
      for (let i = 0; i < answer.length; ) {
        const size = 1 + random(6);
        chunks.push(answer.slice(i, i + size));
        i += size;
      }
      const from = round % 5 === 0 ? [] : sources;
      const seen = frames([...chunks, ' end.'], from);
      expectPrefixes(seen, `${answer} end.`, from);
      // Nothing is held back for good: without code, the last frame is the whole final body.
      if (!/[`~]/.test(answer)) expect(seen.at(-1)).toBe(body(`${answer} end.`, from));
    }
  });

  it('a stream that ends early (stopped, failed) gives out what was held back, linked as the final would', () => {
    for (const answer of [
      'As reported [2]',
      'Run `npm i then see [1] and [3]',
      'Words and trailing spaces   ',
      'Unknown at the end [9]',
    ]) {
      const live = new LiveCitations(sources);
      let shown = '';
      for (const chunk of byChar(answer)) shown += live.push(chunk);
      shown += live.flush();
      expect(shown, JSON.stringify(answer)).toBe(body(answer));
      // Nothing more once everything was given.
      expect(live.flush()).toBe('');
    }
  });

  it('a long answer costs work per chunk, not per chunk times the answer', () => {
    const paragraph = `Scout keeps answers whole [1]. ${'filler text '.repeat(20)}[2]\n\n`;
    const answer = paragraph.repeat(600);
    const live = new LiveCitations(sources);
    const work = startWorkClock();
    let shown = '';
    for (let i = 0; i < answer.length; i += 4) shown += live.push(answer.slice(i, i + 4));
    // About 40,000 pushes over 170,000 characters: quadratic work would take seconds.
    expect(work()).toBeLessThan(2_000);
    expect(shown).toBe(body(answer));
  });

  it('a long run of spaces costs work per chunk too, in prose and after an open backtick', () => {
    // A model stuck emitting spaces: each push scanned the run once from each of its spaces (20 s
    // of event loop for 8,000 spaces then ordinary words, fed 4 characters at a time).
    for (const answer of [
      `${' '.repeat(6_000)}${'words [1] '.repeat(300)}`,
      `\`${' '.repeat(6_000)}x [1] y`,
    ]) {
      const live = new LiveCitations(sources);
      const work = startWorkClock();
      let shown = '';
      for (let i = 0; i < answer.length; i += 4) shown += live.push(answer.slice(i, i + 4));
      expect(work()).toBeLessThan(2_000);
      expect(body(answer).startsWith(shown)).toBe(true);
    }
  });
});
