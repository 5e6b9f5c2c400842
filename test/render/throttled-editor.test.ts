import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ThrottledEditor } from '../../src/render/throttled-editor.js';
import { type Call, fakePlatform } from './fake-platform.js';

const INTERVAL = 1000;

/** Every call starts no sooner than INTERVAL after the previous one ended, and after it started. */
function expectSpaced(calls: Call[], interval = INTERVAL): void {
  for (let i = 1; i < calls.length; i++) {
    const prev = calls[i - 1]!;
    const call = calls[i]!;
    expect(prev.end, `call ${i - 1} ended before call ${i} started`).toBeDefined();
    expect(call.start - prev.end!).toBeGreaterThanOrEqual(interval);
  }
}

/**
 * Intermediate calls are spaced by the interval; the last one (the final, sent by `flush`) goes as
 * soon as the call before it ended — one call at a time still.
 */
function expectSpacedThenFinal(calls: Call[], interval = INTERVAL): void {
  expectSpaced(calls.slice(0, -1), interval);
  const [prev, last] = calls.slice(-2);
  if (prev && last) expect(last.start).toBeGreaterThanOrEqual(prev.end!);
}

async function settle<T>(promise: Promise<T>): Promise<T> {
  await vi.runAllTimersAsync();
  return promise;
}

/**
 * An editor that posted 'a' and then sent 'b', which the platform refused with a rate limit of
 * `retryAfterMs` (its second call).
 */
async function rateLimitedAtSecondCall(retryAfterMs: number) {
  const platform = fakePlatform({
    failCall: (i) => (i === 1 ? Object.assign(new Error('ratelimited'), { retryAfterMs }) : undefined),
  });
  const editor = quietEditor(platform);
  editor.set('a');
  await vi.advanceTimersByTimeAsync(INTERVAL);
  editor.set('b');
  return { platform, editor };
}

/** An editor on `platform` at the test interval whose failures are expected (reported nowhere). */
function quietEditor(platform: ReturnType<typeof fakePlatform>): ThrottledEditor<string, number> {
  return new ThrottledEditor({
    post: platform.post,
    edit: platform.edit,
    intervalMs: INTERVAL,
    onError: () => {},
  });
}

describe('ThrottledEditor', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('posts the first visible text immediately', () => {
    const platform = fakePlatform({ latencyMs: 200 });
    const editor = new ThrottledEditor({ post: platform.post, edit: platform.edit, intervalMs: INTERVAL });
    editor.set('Hello');
    expect(platform.calls).toHaveLength(1);
    expect(platform.calls[0]).toMatchObject({ kind: 'post', payload: 'Hello', start: 1_000_000 });
  });

  it('sends at most one edit per interval under a flood of 1,000 updates, one call at a time', async () => {
    const platform = fakePlatform({ latencyMs: 150 });
    const editor = new ThrottledEditor({ post: platform.post, edit: platform.edit, intervalMs: INTERVAL });
    for (let i = 0; i < 1000; i++) {
      editor.set(`update ${i}`);
      await vi.advanceTimersByTimeAsync(7);
    }
    await settle(editor.flush());

    // 7 s of updates: a post, then one edit per 1.15 s at most, plus the final edit.
    expect(platform.calls.length).toBeGreaterThanOrEqual(5);
    expect(platform.calls.length).toBeLessThanOrEqual(8);
    expect(platform.maxInFlight).toBe(1);
    expectSpacedThenFinal(platform.calls);
    expect(platform.messages.get(1)).toBe('update 999');
    expect(platform.calls.every((c) => c.ok)).toBe(true);
    expect(editor.ref).toBe(1);
  });

  it('coalesces rapid sets and lands the last one on flush', async () => {
    const platform = fakePlatform();
    const editor = new ThrottledEditor({ post: platform.post, edit: platform.edit, intervalMs: INTERVAL });
    editor.set('a');
    editor.set('b');
    editor.set('c');
    await settle(editor.flush());
    expect(platform.calls.map((c) => [c.kind, c.payload])).toEqual([
      ['post', 'a'],
      ['edit', 'c'],
    ]);
    expectSpacedThenFinal(platform.calls);
  });

  it('flush while an edit is in flight waits for it, then sends the latest payload', async () => {
    const platform = fakePlatform({ latencyMs: 400 });
    const editor = new ThrottledEditor({ post: platform.post, edit: platform.edit, intervalMs: INTERVAL });
    editor.set('one');
    await vi.advanceTimersByTimeAsync(400 + INTERVAL);
    editor.set('two'); // the edit starts now and is in flight for 400 ms
    expect(platform.calls).toHaveLength(2);
    editor.set('three');
    let flushed = false;
    const flush = editor.flush().then(() => {
      flushed = true;
    });
    await vi.advanceTimersByTimeAsync(300);
    expect(flushed).toBe(false);
    await settle(flush);
    expect(platform.calls.map((c) => c.payload)).toEqual(['one', 'two', 'three']);
    expect(platform.messages.get(1)).toBe('three');
    expect(platform.maxInFlight).toBe(1);
    expectSpacedThenFinal(platform.calls);
  });

  it('does not re-send an identical payload (compared by key)', async () => {
    const platform = fakePlatform();
    const editor = new ThrottledEditor({
      post: (p: { text: string; at: number }) => platform.post(p.text),
      edit: (ref, p) => platform.edit(ref, p.text),
      intervalMs: INTERVAL,
      key: (p) => p.text,
    });
    editor.set({ text: 'same', at: 1 });
    await settle(editor.flush());
    editor.set({ text: 'same', at: 2 });
    await settle(editor.flush());
    expect(platform.calls).toHaveLength(1);
  });

  it('a failed edit is reported and later edits still land', async () => {
    const errors: unknown[] = [];
    const platform = fakePlatform({
      failCall: (i) => (i === 1 ? new Error('edit failed') : undefined),
    });
    const editor = new ThrottledEditor({
      post: platform.post,
      edit: platform.edit,
      intervalMs: INTERVAL,
      onError: (e, call) => errors.push([call, (e as Error).message]),
    });
    editor.set('v1');
    await vi.advanceTimersByTimeAsync(10);
    editor.set('v2'); // scheduled, fails
    await vi.advanceTimersByTimeAsync(INTERVAL + 10);
    expect(errors).toEqual([['edit', 'edit failed']]);
    editor.set('v3');
    await vi.advanceTimersByTimeAsync(INTERVAL + 10);
    expect(platform.messages.get(1)).toBe('v3');
    editor.set('v4');
    await settle(editor.flush());
    expect(platform.messages.get(1)).toBe('v4');
    expectSpacedThenFinal(platform.calls);
  });

  it('flush retries a failed final edit', async () => {
    const platform = fakePlatform({ failCall: (i) => (i === 1 ? new Error('blip') : undefined) });
    const editor = new ThrottledEditor({ post: platform.post, edit: platform.edit, intervalMs: INTERVAL });
    editor.set('draft');
    await vi.advanceTimersByTimeAsync(10);
    editor.set('final');
    await settle(editor.flush());
    expect(platform.calls.map((c) => [c.payload, c.ok])).toEqual([
      ['draft', true],
      ['final', false],
      ['final', true],
    ]);
    expect(platform.messages.get(1)).toBe('final');
  });

  it('flush gives up without throwing when every edit fails', async () => {
    const platform = fakePlatform({ failCall: (i) => (i > 0 ? new Error('gone') : undefined) });
    const onError = vi.fn();
    const editor = new ThrottledEditor({
      post: platform.post,
      edit: platform.edit,
      intervalMs: INTERVAL,
      onError,
    });
    editor.set('a');
    await vi.advanceTimersByTimeAsync(10);
    editor.set('b');
    await settle(editor.flush());
    // the post, then three attempts at the final edit
    expect(platform.calls.length).toBe(4);
    expect(onError).toHaveBeenCalled();
  });

  it('honours retryAfterMs from a rate-limit error and retries the same payload', async () => {
    const { platform } = await rateLimitedAtSecondCall(5000); // 'b' sent now, rate-limited
    await vi.advanceTimersByTimeAsync(4000);
    expect(platform.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1100);
    expect(platform.calls).toHaveLength(3);
    expect(platform.calls[2]!.start - platform.calls[1]!.end!).toBeGreaterThanOrEqual(5000);
    expect(platform.messages.get(1)).toBe('b');
  });

  it('waits out a Retry-After too long for a timer without spinning (30 days: no call, no busy loop)', async () => {
    const DAYS_30 = 30 * 24 * 3600 * 1000;
    const { platform, editor } = await rateLimitedAtSecondCall(DAYS_30); // 'b' rate-limited for 30 days
    await vi.advanceTimersByTimeAsync(10);
    editor.set('c');
    // A timer cannot hold 30 days: uncut, it fires after 1 ms and the editor re-arms it for ever.
    // Timers that fire in the next minute, one by one (at most 20 looked at):
    const minuteLater = Date.now() + 60_000;
    let fired = 0;
    while (fired < 20 && vi.getTimerCount() > 0) {
      await vi.advanceTimersToNextTimerAsync();
      if (Date.now() > minuteLater) break;
      fired++;
    }
    expect(fired).toBeLessThanOrEqual(2);
    expect(platform.calls).toHaveLength(2);
    expect(platform.messages.get(1)).toBe('a');
    editor.dispose();
  });

  it('re-posts on the next set when the first post failed', async () => {
    const platform = fakePlatform({ failCall: (i) => (i === 0 ? new Error('down') : undefined) });
    const editor = quietEditor(platform);
    editor.set('a');
    await vi.advanceTimersByTimeAsync(10);
    expect(editor.ref).toBeUndefined();
    editor.set('b');
    await settle(editor.flush());
    expect(platform.calls.map((c) => [c.kind, c.payload, c.ok])).toEqual([
      ['post', 'a', false],
      ['post', 'b', true],
    ]);
    expect(editor.ref).toBe(2);
  });

  it('works with an injected clock', async () => {
    let now = 0;
    const timers: { at: number; fn: () => void }[] = [];
    const clock = {
      now: () => now,
      setTimeout: (fn: () => void, ms: number) => {
        const t = { at: now + ms, fn };
        timers.push(t);
        return t;
      },
      clearTimeout: (t: unknown) => {
        timers.splice(timers.indexOf(t as (typeof timers)[number]), 1);
      },
    };
    const sent: string[] = [];
    const editor = new ThrottledEditor<string, number>({
      post: async (p) => {
        sent.push(p);
        return 1;
      },
      edit: async (_r, p) => {
        sent.push(p);
      },
      intervalMs: 500,
      clock,
    });
    editor.set('x');
    await Promise.resolve();
    await Promise.resolve();
    editor.set('y');
    editor.set('z');
    expect(sent).toEqual(['x']);
    expect(timers).toHaveLength(1);
    expect(timers[0]!.at).toBe(500);
    now = 500;
    timers.shift()!.fn();
    expect(sent).toEqual(['x', 'z']);
  });

  describe('setNow (the first visible text goes out immediately)', () => {
    it('sends the next change at once even inside the interval, then throttles again', async () => {
      const platform = fakePlatform({ latencyMs: 10 });
      const editor = new ThrottledEditor({ post: platform.post, edit: platform.edit, intervalMs: INTERVAL });
      editor.set('task card');
      await vi.advanceTimersByTimeAsync(300);
      editor.set('task card done'); // waits for the interval
      await vi.advanceTimersByTimeAsync(100);
      expect(platform.calls).toHaveLength(1);
      editor.setNow('task card done + first answer words');
      expect(platform.calls).toHaveLength(2);
      expect(platform.calls[1]).toMatchObject({
        kind: 'edit',
        payload: 'task card done + first answer words',
      });
      // Only once: the change after it waits a whole interval from the end of the expedited call.
      await vi.advanceTimersByTimeAsync(20);
      editor.set('more words');
      await vi.advanceTimersByTimeAsync(INTERVAL - 50);
      expect(platform.calls).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(100);
      expect(platform.calls).toHaveLength(3);
      expectSpaced(platform.calls.slice(1));
      expect(platform.messages.get(1)).toBe('more words');
    });

    it('waits for a call in flight, then sends at once; later sets are throttled again', async () => {
      const platform = fakePlatform({ latencyMs: 50 });
      const editor = new ThrottledEditor({ post: platform.post, edit: platform.edit, intervalMs: INTERVAL });
      editor.set('a');
      editor.setNow('b'); // the post is still in flight: one call at a time
      expect(platform.calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(50);
      expect(platform.calls).toHaveLength(2);
      expect(platform.calls[1]!.start).toBe(platform.calls[0]!.end);
      expect(platform.maxInFlight).toBe(1);
      editor.set('c');
      await vi.advanceTimersByTimeAsync(INTERVAL);
      expect(platform.calls).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(100);
      expect(platform.calls).toHaveLength(3);
      expectSpaced(platform.calls.slice(1));
    });

    it('a first post sent with setNow does not let the next change skip the interval', async () => {
      const platform = fakePlatform({ latencyMs: 10 });
      const editor = new ThrottledEditor({ post: platform.post, edit: platform.edit, intervalMs: INTERVAL });
      editor.setNow('first text');
      expect(platform.calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(20);
      editor.set('more');
      await vi.advanceTimersByTimeAsync(INTERVAL - 50);
      expect(platform.calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(100);
      expect(platform.calls).toHaveLength(2);
      expectSpaced(platform.calls);
    });

    it('never skips a server-requested rate-limit delay', async () => {
      const { platform, editor } = await rateLimitedAtSecondCall(3000); // 'b' rate-limited for 3 s
      await vi.advanceTimersByTimeAsync(1);
      editor.setNow('c');
      await vi.advanceTimersByTimeAsync(2000);
      expect(platform.calls).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(1100);
      expect(platform.calls).toHaveLength(3);
      expect(platform.calls[2]!.start - platform.calls[1]!.end!).toBeGreaterThanOrEqual(3000);
      expect(platform.messages.get(1)).toBe('c');
    });
  });

  describe('the final state lands at once (issue 30)', () => {
    it('flush sends the final payload as soon as the edit before it ended, not an interval later', async () => {
      const platform = fakePlatform({ latencyMs: 40 });
      const editor = new ThrottledEditor({ post: platform.post, edit: platform.edit, intervalMs: INTERVAL });
      editor.set('first');
      await vi.advanceTimersByTimeAsync(INTERVAL + 100);
      editor.set('second'); // an intermediate edit starts now
      expect(platform.calls).toHaveLength(2);
      editor.set('final');
      const flushAt = Date.now();
      await settle(editor.flush());
      expect(platform.calls.map((c) => c.payload)).toEqual(['first', 'second', 'final']);
      // Waited for the edit in flight (one call at a time), then went at once.
      expect(platform.calls[2]!.start).toBe(platform.calls[1]!.end);
      expect(platform.calls[2]!.end! - flushAt).toBeLessThanOrEqual(2 * 40);
      expect(platform.maxInFlight).toBe(1);
    });

    it('flush still waits for a server-requested rate-limit delay', async () => {
      const { platform, editor } = await rateLimitedAtSecondCall(3000); // 'b' rate-limited for 3 s
      await vi.advanceTimersByTimeAsync(1);
      editor.set('final');
      await settle(editor.flush());
      expect(platform.calls).toHaveLength(3);
      expect(platform.calls[2]!.start - platform.calls[1]!.end!).toBeGreaterThanOrEqual(3000);
      expect(platform.messages.get(1)).toBe('final');
    });
  });

  describe('hold (paced by content as well as time)', () => {
    /** Held for 5 s unless 10 characters or more were added since the last call. */
    const byContent = (platform: ReturnType<typeof fakePlatform>) => {
      let sent = 0;
      return new ThrottledEditor<string, number>({
        post: async (p) => {
          const ref = await platform.post(p);
          sent = p.length;
          return ref;
        },
        edit: async (ref, p) => {
          await platform.edit(ref, p);
          sent = p.length;
        },
        intervalMs: INTERVAL,
        hold: (p) => (p.length - sent >= 10 ? 0 : 5000),
      });
    };

    it('a small change waits for the hold, a big one goes at the interval', async () => {
      const platform = fakePlatform();
      const editor = byContent(platform);
      editor.set('a');
      editor.set('ab'); // 1 character more: held
      await vi.advanceTimersByTimeAsync(INTERVAL * 3);
      expect(platform.calls).toHaveLength(1);
      editor.set('ab0123456789'); // now due: the interval has long passed, so at once
      await vi.advanceTimersByTimeAsync(0);
      expect(platform.calls.map((c) => c.payload)).toEqual(['a', 'ab0123456789']);
      editor.set('ab0123456789x'); // held again: goes when 5 s passed since the last call
      await vi.advanceTimersByTimeAsync(4990);
      expect(platform.calls).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(20);
      expect(platform.calls).toHaveLength(3);
      expect(platform.calls[2]!.start - platform.calls[1]!.end!).toBe(5000);
    });

    it('content that becomes due still respects the interval, and flush ignores the hold', async () => {
      const platform = fakePlatform();
      const editor = byContent(platform);
      editor.set('a');
      await vi.advanceTimersByTimeAsync(10);
      editor.set('a0123456789'); // due by content, but within the interval
      await vi.advanceTimersByTimeAsync(INTERVAL - 20);
      expect(platform.calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(20);
      expect(platform.calls).toHaveLength(2);
      editor.set('a0123456789!'); // held
      const flushAt = Date.now();
      await settle(editor.flush());
      expect(platform.calls.map((c) => c.payload)).toEqual(['a', 'a0123456789', 'a0123456789!']);
      expect(platform.calls[2]!.start).toBe(flushAt);
    });
  });
});
