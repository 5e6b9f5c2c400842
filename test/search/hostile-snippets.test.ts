/**
 * Issue 27 §8: a provider that answers with 64 KB of hostile markup per title and snippet. The old
 * regex tag stripper rescanned to the end from every unclosed `<` (13 s of event loop per snippet);
 * through the real service and a real provider client on loopback, the results must still read
 * right and the event loop must stay free for the other conversations.
 */
import { describe, expect, it } from 'vitest';
import { SNIPPET_MAX_CHARS } from '../../src/search/clean-results.js';
import { startStallMeter } from '../helpers/stall-meter.js';
import { searchServiceWith, useFakeSearch } from './search-kit.js';

const fake = useFakeSearch();
const SNIPPET_BYTES = 64 * 1024;

/** `lead` then `unit` repeated up to 64 KB: the text a reader would see comes first. */
function hostile(lead: string, unit: string): string {
  return (lead + unit.repeat(Math.ceil(SNIPPET_BYTES / unit.length))).slice(0, SNIPPET_BYTES);
}

const ATTACKS: Record<string, string> = {
  'runs of <': '<',
  'unclosed tags': '<a ',
  'unclosed comment openers': '<!--',
  'entity storm': '&amp;&#x41;&lt;&',
  'attribute storm': '<b a="x" ',
};

describe('search snippets and titles that are 64 KB of hostile markup', () => {
  for (const provider of ['tavily', 'brave'] as const) {
    it(`${provider}: every result reads its leading text, capped, and the event loop stays free`, async () => {
      const kinds = Object.entries(ATTACKS);
      const results64k = kinds.map(([name, unit], i) => ({
        title: hostile(`Result <b>${i}</b> &amp; more `, unit),
        url: `https://example.com/hostile/${i}`,
        snippet: hostile(`The <strong>useful</strong> part about ${name}. `, unit),
      }));
      fake.script('hostile', results64k);
      fake.script('warm-up', results64k);
      const search = searchServiceWith(fake.env(provider));
      // The first request loads fetch's internals and the parser's code gets compiled (stalls of their
      // own, far worse on a busy machine): the same answer once first, then the measured one.
      await search.search('warm-up', { sessionKey: 's' });
      const meter = startStallMeter();
      const { results } = await search.search('hostile', { sessionKey: 's' });
      const stallMs = meter.stop();
      expect(results).toHaveLength(kinds.length);
      for (const [i, [name]] of kinds.entries()) {
        const r = results[i]!;
        expect(r.title.startsWith(`Result ${i} & more`)).toBe(true);
        expect(r.title.length).toBeLessThanOrEqual(200);
        expect(r.snippet.startsWith(`The useful part about ${name}.`)).toBe(true);
        expect(r.snippet.length).toBeLessThanOrEqual(SNIPPET_MAX_CHARS);
      }
      // A loose bound (the quadratic version blocked for tens of seconds); the speed is in bench/.
      expect(stallMs).toBeLessThan(500);
    }, 120_000);
  }
});
