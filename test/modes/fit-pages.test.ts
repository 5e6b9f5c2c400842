/**
 * The order in which a turn's tool results give way to the context window: pages first (fetch_url
 * reads them again in parts), then other long tool outputs, oldest first; result lists, which the
 * answer's citations point at, and short outputs never.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { PageFitter, pageSlot } from '../../src/modes/turn/fit-pages.js';
import type { Observation } from '../../src/modes/turn/observations.js';
import { SHORTENED_OUTPUT_NOTE } from '../../src/modes/turn/shorten-output.js';

const paragraphs = (what: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) => `${what}, paragraph ${i}: the harbour board met about tolls and tides.`,
  ).join('\n\n');

function observation(tool: string, text: string, extra: Partial<Observation> = {}): Observation {
  return { tool, input: tool, text, isError: false, isEmpty: false, isPage: false, sources: [], ...extra };
}

const mcpOutput = (name: string) => observation(name, paragraphs(name, 120));
const page = observation('fetch_url', `Source [2]\nA report · Example Times\n\n${paragraphs('page', 120)}`, {
  isPage: true,
  sources: [{ n: 2, title: 'A report', url: 'https://example.com/a' }],
  parts: 1,
});
const results = observation(
  'web_search',
  `[1] A result — https://example.com/r\n    ${paragraphs('snippet', 40)}`,
  {
    sources: [{ n: 1, title: 'A result', url: 'https://example.com/r' }],
  },
);
const short = observation('current_context', 'Today is 2026-12-03, 09:30 Europe/Berlin.');

function freeTokens(excess: number) {
  const fitter = new PageFitter(countTokens, 'function-call');
  const slots = [mcpOutput('archive__old'), results, page, short, mcpOutput('archive__new')].map(pageSlot);
  const left = fitter.shortenOldest(slots, excess);
  const shortened = slots.filter((slot) => slot.current !== slot.original).map((slot) => slot.original.tool);
  return { left, shortened, slots, fitter };
}

describe('PageFitter.shortenOldest', () => {
  it('shortens the page first while that frees enough, other outputs left whole', () => {
    const { left, shortened } = freeTokens(300);
    expect(left).toBe(0);
    expect(shortened).toEqual(['fetch_url']);
  });

  it('then the oldest long output, with a note; the newest only when that is not enough', () => {
    const pageTokens = countTokens(page.text);
    const { left, shortened, slots } = freeTokens(pageTokens + 300);
    expect(left).toBe(0);
    expect(shortened).toEqual(['archive__old', 'fetch_url']);
    const old = slots[0]?.current.text ?? '';
    expect(old.endsWith(`\n\n${SHORTENED_OUTPUT_NOTE}`)).toBe(true);
    expect(mcpOutput('archive__old').text.startsWith(old.slice(0, -SHORTENED_OUTPUT_NOTE.length - 2))).toBe(
      true,
    );

    const more = freeTokens(pageTokens + countTokens(mcpOutput('archive__old').text) + 300);
    expect(more.shortened).toEqual(['archive__old', 'fetch_url', 'archive__new']);
  });

  it('never touches a result list or a short output, even when the window stays full', () => {
    const { left, slots } = freeTokens(1_000_000);
    expect(left).toBeGreaterThan(0);
    expect(slots[1]?.current).toBe(results);
    expect(slots[3]?.current).toBe(short);
    expect(slots[0]?.current.text).toBe(SHORTENED_OUTPUT_NOTE);
  });
});
