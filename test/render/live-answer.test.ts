import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeliveryError } from '../../src/render/delivery.js';
import type { LiveAnswerOptions } from '../../src/render/answer-parts.js';
import { LiveAnswer } from '../../src/render/live-answer.js';
import { splitMessage } from '../../src/render/split-text.js';
import { fakePlatform } from './fake-platform.js';
import { codeBlock, contentOf, fenceLines, longAnswer, prng } from './markdown-samples.js';

const INTERVAL = 1000;

async function streamInChunks(answer: LiveAnswer<string, number>, text: string, seed: number): Promise<void> {
  const rand = prng(seed);
  let at = 0;
  while (at < text.length) {
    at = Math.min(text.length, at + 1 + Math.floor(rand() * 40));
    answer.set(text.slice(0, at));
    await vi.advanceTimersByTimeAsync(15);
  }
}

/** A LiveAnswer posting to `platform`, 2,000 characters a message unless `options` says otherwise. */
function liveAnswerOn(
  platform: ReturnType<typeof fakePlatform>,
  options: Partial<LiveAnswerOptions<string, number>> = {},
): LiveAnswer<string, number> {
  return new LiveAnswer<string, number>({
    post: platform.post,
    edit: platform.edit,
    maxChars: 2000,
    intervalMs: INTERVAL,
    ...options,
  });
}

describe('LiveAnswer', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  for (const limit of [2000, 3900]) {
    it(`streams a 30,000-character answer into messages ≤ ${limit} that join to the final text`, async () => {
      const platform = fakePlatform({ latencyMs: 120 });
      const answer = liveAnswerOn(platform, { maxChars: limit });
      const { text } = longAnswer(30_000, 11);
      await streamInChunks(answer, text, limit);
      const finishAt = Date.now();
      const done = answer.finish();
      await vi.runAllTimersAsync();
      await done;

      // What the platform received: every payload within the limit, messages in order.
      for (const call of platform.calls) {
        expect(call.payload.length).toBeLessThanOrEqual(limit);
        expect(fenceLines(call.payload) % 2).toBe(0);
      }
      const posts = platform.calls.filter((c) => c.kind === 'post');
      expect(posts.map((c) => c.ref)).toEqual(posts.map((_, i) => i + 1));
      for (let i = 1; i < posts.length; i++)
        expect(posts[i]!.start).toBeGreaterThanOrEqual(posts[i - 1]!.end!);

      const messages = platform.ordered();
      expect(messages.length).toBeGreaterThanOrEqual(Math.ceil(text.length / limit));
      expect(answer.refs).toEqual(messages.map((_, i) => i + 1));
      for (const message of messages) {
        expect(message.length).toBeLessThanOrEqual(limit);
        expect(fenceLines(message) % 2).toBe(0);
      }
      expect(contentOf(messages.join('\n'))).toBe(contentOf(text));

      // Per message: one call at a time, at most one edit per interval while streaming; the final
      // state goes as soon as the message's call before it ended.
      for (const ref of new Set(platform.calls.map((c) => c.ref))) {
        const calls = platform.calls.filter((c) => c.ref === ref);
        for (let i = 1; i < calls.length; i++) {
          const gap = calls[i]!.start - calls[i - 1]!.end!;
          expect(gap).toBeGreaterThanOrEqual(calls[i]!.start >= finishAt ? 0 : INTERVAL);
        }
      }
    });
  }

  it('streams one 10,000-character code block with every message a closed code block', async () => {
    const platform = fakePlatform({ latencyMs: 50 });
    const answer = liveAnswerOn(platform);
    const text = `Script:\n\n${codeBlock(prng(5), 220, 'python')}\n\nDone.`;
    await streamInChunks(answer, text, 8);
    const done = answer.finish();
    await vi.runAllTimersAsync();
    await done;
    for (const call of platform.calls) {
      expect(call.payload.length).toBeLessThanOrEqual(2000);
      expect(fenceLines(call.payload) % 2).toBe(0);
    }
    const messages = platform.ordered();
    expect(messages.length).toBeGreaterThanOrEqual(6);
    for (const message of messages.slice(1, -1)) expect(message).toMatch(/^```python\n[\s\S]*\n```$/);
    const codeLines = (t: string) => t.split('\n').filter((l) => l.startsWith('  const'));
    expect(codeLines(messages.join('\n'))).toEqual(codeLines(text));
  });

  it('never freezes a cut inside a link that is still streaming', async () => {
    const link = `[the official documentation page for this feature](https://example.com/${'path/'.repeat(12)}x)`;
    for (const offset of [1900, 1940, 1975]) {
      const platform = fakePlatform();
      const answer = liveAnswerOn(platform);
      const text = `${'word '.repeat(offset / 5)}${link} and then more words follow. `.repeat(2);
      for (let at = 0; at < text.length; at += 3) answer.set(text.slice(0, at));
      const done = answer.finish(text);
      await vi.runAllTimersAsync();
      await done;
      const messages = platform.ordered();
      expect(messages.filter((m) => m.includes(link))).toHaveLength(2);
      expect(contentOf(messages.join('\n'))).toBe(contentOf(text));
    }
  });

  it('posts the first text at once and lands the final text on finish', async () => {
    const platform = fakePlatform();
    const answer = liveAnswerOn(platform);
    answer.set('');
    expect(platform.calls).toHaveLength(0);
    answer.set('Hel');
    expect(platform.calls).toHaveLength(1);
    answer.set('Hello wor');
    answer.set('Hello world');
    const done = answer.finish('Hello world, with a [link](https://example.com).');
    await vi.runAllTimersAsync();
    await done;
    expect(platform.ordered()).toEqual(['Hello world, with a [link](https://example.com).']);
    expect(platform.calls.map((c) => c.payload)).toEqual([
      'Hel',
      'Hello world, with a [link](https://example.com).',
    ]);
  });

  it('finish with a different final text edits the earlier messages that changed', async () => {
    const platform = fakePlatform();
    const answer = liveAnswerOn(platform);
    const { text } = longAnswer(6000, 4);
    await streamInChunks(answer, text, 1);
    await vi.advanceTimersByTimeAsync(5000);
    const streamed = platform.ordered();
    expect(streamed.length).toBeGreaterThanOrEqual(3);

    // Citations get linked in the final text: the first message's content changes.
    const final = text.replace(/\.\s/, ' [[1]](https://example.com/source-one). ');
    const callsBefore = platform.calls.length;
    const done = answer.finish(final);
    await vi.runAllTimersAsync();
    await done;

    const edits = platform.calls.slice(callsBefore);
    expect(edits.some((c) => c.kind === 'edit' && c.ref === 1)).toBe(true);
    expect(platform.ordered()).toEqual(splitMessage(final, 2000));
  });

  it('finish with the streamed text does not edit messages already complete', async () => {
    const platform = fakePlatform();
    const answer = liveAnswerOn(platform);
    const { text } = longAnswer(8000, 9);
    await streamInChunks(answer, text, 2);
    await vi.advanceTimersByTimeAsync(5000);
    const callsBefore = platform.calls.length;
    const done = answer.finish(text);
    await vi.runAllTimersAsync();
    await done;
    expect(platform.calls.length).toBe(callsBefore);
    expect(contentOf(platform.ordered().join('\n'))).toBe(contentOf(text));
  });

  it('removes (or blanks) messages a shorter final text no longer needs', async () => {
    const platform = fakePlatform();
    const removed: number[] = [];
    const answer = liveAnswerOn(platform, {
      remove: async (ref) => {
        removed.push(ref);
      },
    });
    const { text } = longAnswer(5000, 2);
    await streamInChunks(answer, text, 3);
    const count = answer.messageCount;
    expect(count).toBeGreaterThanOrEqual(3);
    const done = answer.finish('Sorry, the answer was withdrawn.');
    await vi.runAllTimersAsync();
    await done;
    expect(platform.messages.get(1)).toBe('Sorry, the answer was withdrawn.');
    expect(removed).toEqual(Array.from({ length: count - 1 }, (_, i) => i + 2));
  });

  it('retries a rate-limited delete of a message the final text no longer needs until it lands', async () => {
    const platform = fakePlatform();
    const removed: number[] = [];
    let refusals = 0;
    const answer = liveAnswerOn(platform, {
      remove: async (ref) => {
        // A 30 × 429 storm on deletes: each answered with the platform's retry-after.
        if (refusals++ < 30)
          throw new DeliveryError({ kind: 'rate-limited', code: '429', retryAfterMs: 500 });
        removed.push(ref);
      },
    });
    const { text } = longAnswer(3000, 4);
    await streamInChunks(answer, text, 5);
    expect(answer.messageCount).toBe(2);
    const done = answer.finish('Short now.');
    await vi.runAllTimersAsync();
    await done;
    expect(refusals).toBe(31);
    expect(removed).toEqual([2]);
  });

  it('applies the transform to every payload', async () => {
    const sent: { text: string }[] = [];
    const answer = new LiveAnswer<{ text: string }, number>({
      post: async (p) => {
        sent.push(p);
        return 1;
      },
      edit: async (_ref, p) => {
        sent.push(p);
      },
      maxChars: 2000,
      intervalMs: INTERVAL,
      transform: (md) => ({ text: md.toUpperCase() }),
    });
    answer.set('hi');
    const done = answer.finish('hi there');
    await vi.runAllTimersAsync();
    await done;
    expect(sent).toEqual([{ text: 'HI' }, { text: 'HI THERE' }]);
  });
});
