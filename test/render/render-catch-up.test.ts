/**
 * Growing text renders only a few times per edit interval (render-frame.ts); a call about to be sent
 * renders what grew since the last frame first. What the platform receives must be the newest text
 * at the moment of each call, never a frame old, and the catch-up must not start a second call.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { ChannelPacers } from '../../src/render/channel-pacer.js';
import { ThrottledEditor } from '../../src/render/throttled-editor.js';
import { TurnRenderer } from '../../src/render/turn-renderer.js';
import { emptyView } from '../../src/render/view.js';
import { fakePlatform } from './fake-platform.js';

const INTERVAL_MS = 1_000;
const FRAME_MS = 600;

beforeEach(() => {
  vi.useFakeTimers({
    now: 1_000_000,
    toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'Date', 'performance'],
  });
});
afterEach(() => {
  vi.useRealTimers();
});

function renderer(calls: Array<{ at: number; call: string }>, frameMs = FRAME_MS) {
  let n = 0;
  return new TurnRenderer<string, string>({
    writer: {
      async post(payload) {
        calls.push({ at: Date.now(), call: `post ${payload}` });
        return `m${++n}`;
      },
      async edit(ref, payload) {
        calls.push({ at: Date.now(), call: `edit ${ref} ${payload}` });
      },
    },
    build: {
      steps: () => undefined,
      answerPart: (markdown) => `part ${markdown}`,
      planPart: (markdown) => markdown,
    },
    limits: { answerChars: 1_000 },
    channel: { key: 'C1', pacers: new ChannelPacers() },
    locale: 'en',
    logger: silentLogger,
    intervalMs: INTERVAL_MS,
    renderFrameMs: frameMs,
  });
}

describe('TurnRenderer: each call carries the newest text', () => {
  it('an edit sent between two frames carries the words that arrived after the last frame', async () => {
    const calls: Array<{ at: number; call: string }> = [];
    const turn = renderer(calls);
    const view = emptyView();
    const words: string[] = [];
    // A word every 50 ms for 5 s: with frames 600 ms apart, most edits fall between two frames.
    for (let i = 0; i < 100; i++) {
      words.push(`w${i}`);
      view.answer = words.join(' ');
      turn.update(view);
      await vi.advanceTimersByTimeAsync(50);
    }
    const edits = calls.filter((c) => c.call.startsWith('edit'));
    expect(edits.length).toBeGreaterThanOrEqual(3);
    for (const edit of edits) {
      // The words given before the call (one every 50 ms from the start): all of them, no more.
      const given = Math.ceil((edit.at - 1_000_000) / 50);
      expect(edit.call).toMatch(new RegExp(`\\bw${given - 1}$`));
    }
    const done = turn.done({ ...view, answerFinal: true, done: true });
    await vi.runAllTimersAsync();
    await done;
    expect(calls.at(-1)?.call).toContain('w99');
  });

  it('the first answer text is posted at once, whatever the frame', async () => {
    const calls: Array<{ at: number; call: string }> = [];
    const turn = renderer(calls, 60_000);
    const view = emptyView();
    view.answer = 'First words';
    turn.update(view);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.call)).toEqual(['post part First words']);
  });
});

describe('ThrottledEditor refresh', () => {
  it('brings the payload up to date just before the call and never starts a second call from it', async () => {
    const platform = fakePlatform({ latencyMs: 100 });
    let latest = 'v1';
    let refreshes = 0;
    const editor: ThrottledEditor<string, number> = new ThrottledEditor<string, number>({
      post: platform.post,
      edit: platform.edit,
      intervalMs: INTERVAL_MS,
      // The renderer's catch-up: it sets the newest payload on this very editor.
      refresh: () => {
        refreshes++;
        editor.set(latest);
      },
    });
    editor.set('v1');
    await vi.advanceTimersByTimeAsync(200);
    latest = 'v2';
    editor.set('v1½'); // a stale frame: the call must carry v2, set during refresh
    latest = 'v3';
    await vi.runAllTimersAsync();
    await editor.flush();
    await vi.runAllTimersAsync();
    expect(platform.calls.map((c) => c.payload)).toEqual(['v1', 'v3']);
    expect(platform.maxInFlight).toBe(1);
    expect(refreshes).toBeGreaterThanOrEqual(2);
  });

  it('a refresh that throws leaves the call to go with the payload it had', async () => {
    const platform = fakePlatform({ latencyMs: 10 });
    const editor = new ThrottledEditor<string, number>({
      post: platform.post,
      edit: platform.edit,
      intervalMs: INTERVAL_MS,
      refresh: () => {
        throw new Error('render bug');
      },
    });
    editor.set('only');
    await vi.runAllTimersAsync();
    expect(platform.calls.map((c) => c.payload)).toEqual(['only']);
  });
});
