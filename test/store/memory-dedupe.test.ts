/**
 * The in-process dedupe stays bounded: expired keys and, past its limit, the oldest ones are
 * forgotten, while every key inside its window is still recognised.
 */
import { describe, expect, it } from 'vitest';
import { MemoryDedupe } from '../../src/store/dedupe.js';

describe('MemoryDedupe', () => {
  it('forgets the oldest key past its limit and keeps the newer ones', async () => {
    const dedupe = new MemoryDedupe(3);
    for (const key of ['a', 'b', 'c', 'd']) expect(await dedupe.firstSeen(key, 60_000)).toBe(true);
    expect(await dedupe.firstSeen('b', 60_000)).toBe(false);
    expect(await dedupe.firstSeen('c', 60_000)).toBe(false);
    expect(await dedupe.firstSeen('d', 60_000)).toBe(false);
    expect(await dedupe.firstSeen('a', 60_000)).toBe(true);
  });

  it('a key seen again after its window is new again; one inside it is not', async () => {
    const dedupe = new MemoryDedupe();
    expect(await dedupe.firstSeen('short', 20)).toBe(true);
    expect(await dedupe.firstSeen('long', 60_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await dedupe.firstSeen('short', 20)).toBe(true);
    expect(await dedupe.firstSeen('long', 60_000)).toBe(false);
  });
});
