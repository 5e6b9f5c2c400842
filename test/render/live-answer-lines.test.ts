/**
 * LiveAnswer never shows a line in two messages at once (issue 27, point 11): the message that
 * loses lines to another is edited (or deleted) before the one that gains them, while streaming
 * (a part freezes at a boundary) and when the final text moves boundaries (longer or shorter lines).
 * The fake platform is read after every call it applied; every line carries a unique label.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveAnswer } from '../../src/render/live-answer.js';
import { fakePlatform } from './fake-platform.js';

const LABEL = /\bL\d{4}\b/g;

function labelled(lines: number, tail: (i: number) => string): string {
  return Array.from({ length: lines }, (_, i) => `L${String(i).padStart(4, '0')} ${tail(i)}`).join('\n\n');
}

/** A platform whose every applied call is followed by a look at all messages. */
function watchedPlatform(latencyMs: number) {
  const platform = fakePlatform({ latencyMs });
  const twice: string[] = [];
  const check = (after: string) => {
    const where = new Map<string, number>();
    for (const text of platform.messages.values())
      for (const label of new Set(text.match(LABEL) ?? [])) where.set(label, (where.get(label) ?? 0) + 1);
    const doubled = [...where].filter(([, n]) => n > 1).map(([label]) => label);
    if (doubled.length > 0) twice.push(`${after}: ${doubled.length} lines twice (${doubled[0]}…)`);
  };
  return {
    platform,
    twice,
    post: async (payload: string) => {
      const ref = await platform.post(payload);
      check(`post ${ref}`);
      return ref;
    },
    edit: async (ref: number, payload: string) => {
      await platform.edit(ref, payload);
      check(`edit ${ref}`);
    },
    remove: async (ref: number) => {
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      platform.messages.delete(ref);
      check(`delete ${ref}`);
    },
  };
}

describe('LiveAnswer: no line in two messages at once', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const streamed = (i: number) =>
    `cites [${(i % 3) + 1}]${' [9]'.repeat(6)}. ${'Words that stay. '.repeat(3)}`;
  const CASES: { name: string; final: (i: number) => string; remove: boolean }[] = [
    {
      name: 'the final text is longer (citations linked)',
      final: (i) => `${streamed(i)} (https://example.com/${i})`,
      remove: true,
    },
    {
      name: 'the final text is shorter (missing sources dropped)',
      final: (i) => `cites [${(i % 3) + 1}]. ${'Words that stay. '.repeat(3)}`,
      remove: true,
    },
    {
      name: 'the final text is much shorter, surplus messages deleted',
      final: (i) => `c${i % 2}`,
      remove: true,
    },
    {
      name: 'the final text is much shorter, surplus messages blanked',
      final: (i) => `c${i % 2}`,
      remove: false,
    },
  ];

  for (const { name, final, remove } of CASES) {
    it(name, async () => {
      const w = watchedPlatform(150);
      const answer = new LiveAnswer<string, number>({
        post: w.post,
        edit: w.edit,
        ...(remove ? { remove: w.remove } : {}),
        maxChars: 2000,
        intervalMs: 1000,
      });
      const text = labelled(90, streamed);
      for (let at = 0; at < text.length; ) {
        at = Math.min(text.length, at + 173);
        answer.set(text.slice(0, at));
        await vi.advanceTimersByTimeAsync(20);
      }
      const finalText = labelled(90, final);
      const done = answer.finish(finalText);
      await vi.runAllTimersAsync();
      await done;

      expect(w.twice.slice(0, 5)).toEqual([]);
      expect(w.platform.calls.length).toBeGreaterThan(6);
      const shown = w.platform.ordered().join('\n');
      expect((shown.match(LABEL) ?? []).sort()).toEqual(finalText.match(LABEL)!.sort());
    });
  }
});
