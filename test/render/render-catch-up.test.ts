/**
 * Growing text renders only a few times per edit interval (render-frame.ts); a call about to be sent
 * renders what grew since the last frame first. What the platform receives must be the newest text
 * at the moment of each call, never a frame old, and the catch-up must not start a second call.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { ChannelPacers } from '../../src/render/channel-pacer.js';
import { ThrottledEditor } from '../../src/render/throttled-editor.js';
import { FINAL_HOLD_MS, TurnRenderer } from '../../src/render/turn-renderer.js';
import type { AnswerStream, StreamChunks } from '../../src/render/answer-stream.js';
import { emptyView, type StepView } from '../../src/render/view.js';
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

interface Card {
  id: string;
  body: string;
}

/**
 * A turn renderer over a recording writer (and, with `stream`, a recording native stream whose task
 * cards show the steps). `steps`: the steps message shows each step's body.
 */
function renderer(
  calls: Array<{ at: number; call: string }>,
  options: { frameMs?: number; steps?: boolean; stream?: boolean } = {},
) {
  let n = 0;
  const record = (call: string) => calls.push({ at: Date.now(), call });
  const stream: AnswerStream<string, string, Card> = {
    async start(chunks: StreamChunks<Card>) {
      record(`start ${JSON.stringify(chunks)}`);
      return `s${++n}`;
    },
    async append(ref, chunks) {
      record(`append ${ref} ${JSON.stringify(chunks)}`);
    },
    async stop(ref, chunks) {
      record(`stop ${ref} ${JSON.stringify(chunks)}`);
    },
    task: (step: StepView) => ({ id: step.id, body: step.body }),
    text: (markdown) => markdown,
    message: (markdown: string) => `message ${markdown}`,
    refusal: () => undefined,
    refused: () => {},
  };
  return new TurnRenderer<string, string>({
    writer: {
      async post(payload) {
        record(`post ${payload}`);
        return `m${++n}`;
      },
      async edit(ref, payload) {
        record(`edit ${ref} ${payload}`);
      },
    },
    build: {
      steps: (view) =>
        options.steps ? `steps ${view.steps.map((step) => step.body).join(' | ')}` : undefined,
      answerPart: (markdown) => `part ${markdown}`,
      planPart: (markdown) => markdown,
    },
    ...(options.stream ? { stream } : {}),
    limits: { answerChars: 1_000 },
    channel: { key: 'C1', pacers: new ChannelPacers() },
    locale: 'en',
    logger: silentLogger,
    intervalMs: INTERVAL_MS,
    renderFrameMs: options.frameMs ?? FRAME_MS,
  });
}

/**
 * Gives a word every 50 ms for 5 s (frames 600 ms apart: most calls fall between two frames) and
 * returns the calls made meanwhile whose payload shows the words (`shows`).
 */
async function streamWords(
  calls: Array<{ at: number; call: string }>,
  give: (words: string) => void,
  shows: (call: string) => boolean,
) {
  const words: string[] = [];
  for (let i = 0; i < 100; i++) {
    words.push(`w${i}`);
    give(words.join(' '));
    await vi.advanceTimersByTimeAsync(50);
  }
  return calls.filter((c) => shows(c.call));
}

/** A turn whose one step streams its reasoning (growing text, not a visible change), word by word. */
async function thinkAloud(
  calls: Array<{ at: number; call: string }>,
  options: { steps?: boolean; stream?: boolean },
  shows: (call: string) => boolean,
) {
  const turn = renderer(calls, options);
  const view = emptyView();
  const step: StepView = {
    id: 't1',
    kind: 'thinking',
    title: 'Thinking',
    body: '',
    status: 'running',
    collapsed: false,
  };
  view.steps.push(step);
  return streamWords(
    calls,
    (words) => {
      step.body = words;
      turn.update(view);
    },
    shows,
  );
}

/** Each call carries every word given before it (one every 50 ms from the start), and no more. */
function expectNewest(sent: Array<{ at: number; call: string }>) {
  expect(sent.length).toBeGreaterThanOrEqual(3);
  for (const call of sent) {
    const given = Math.ceil((call.at - 1_000_000) / 50);
    expect(call.call).toMatch(new RegExp(`\\bw${given - 1}\\b(?! w)`));
  }
}

describe('TurnRenderer: each call carries the newest text', () => {
  it('an edit sent between two frames carries the words that arrived after the last frame', async () => {
    const calls: Array<{ at: number; call: string }> = [];
    const turn = renderer(calls);
    const view = emptyView();
    const edits = await streamWords(
      calls,
      (words) => {
        view.answer = words;
        turn.update(view);
      },
      (call) => call.startsWith('edit'),
    );
    expectNewest(edits);
    const done = turn.done({ ...view, answerFinal: true, done: true });
    await vi.runAllTimersAsync();
    await done;
    expect(calls.at(-1)?.call).toContain('w99');
  });

  it('the steps message: each edit carries the step text that grew after the last frame', async () => {
    const calls: Array<{ at: number; call: string }> = [];
    expectNewest(await thinkAloud(calls, { steps: true }, (call) => call.startsWith('edit m1 steps')));
  });

  it('a native stream’s task cards: each append carries the step text that grew after the last frame', async () => {
    const calls: Array<{ at: number; call: string }> = [];
    expectNewest(await thinkAloud(calls, { stream: true }, (call) => call.startsWith('append')));
  });
  it('the first answer text is still posted at once, however long the frame', async () => {
    const calls: Array<{ at: number; call: string }> = [];
    const turn = renderer(calls, { frameMs: 60_000 });
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

  it('a refresh that flushes the same editor: one call at a time, the payload sent once', async () => {
    const platform = fakePlatform({ latencyMs: 100 });
    let flushed: Promise<void> | undefined;
    const editor: ThrottledEditor<string, number> = new ThrottledEditor<string, number>({
      post: platform.post,
      edit: platform.edit,
      intervalMs: INTERVAL_MS,
      refresh: () => {
        // What a retired part does when its message cannot be deleted: blank it, and land that.
        editor.set('blank');
        flushed ??= editor.flush();
      },
    });
    editor.set('v1');
    await vi.advanceTimersByTimeAsync(200);
    editor.set('v2');
    await vi.runAllTimersAsync();
    await flushed;
    expect(platform.calls.map((c) => c.payload)).toEqual(['blank']);
    expect(platform.maxInFlight).toBe(1);
  });

  it('a refresh that disposes the editor: no call is made', async () => {
    const platform = fakePlatform({ latencyMs: 10 });
    const editor: ThrottledEditor<string, number> = new ThrottledEditor<string, number>({
      post: platform.post,
      edit: platform.edit,
      intervalMs: INTERVAL_MS,
      refresh: () => editor.dispose(),
    });
    editor.set('never');
    await vi.runAllTimersAsync();
    expect(platform.calls).toEqual([]);
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

describe('TurnRenderer: the final text waits for done() briefly, never long', () => {
  // Between the answer's final event and done() the core saves the turn; with a slow store that is
  // seconds. The final text goes with done() when done() follows at once (no call of its own), but
  // words that arrived after the last frame must not stay hidden while done() is late.
  for (const stream of [false, true]) {
    it(`${stream ? 'native stream' : 'post + edit'}: the last words show within the final hold and an interval when done() is 5 s late`, async () => {
      const calls: Array<{ at: number; call: string }> = [];
      const turn = renderer(calls, { stream });
      const view = emptyView();
      const words: string[] = [];
      for (let i = 0; i < 40; i++) {
        words.push(`w${i}`);
        view.answer = words.join(' ');
        turn.update(view);
        await vi.advanceTimersByTimeAsync(50);
      }
      // The last words and the final answer arrive together, right after a frame (a paragraph's
      // worth: a native stream's append waits for that much new text, answer-stream.ts).
      view.answer = `${words.join(' ')} LASTWORDS ${'and more words '.repeat(80)}`;
      view.answerFinal = true;
      turn.update(view);
      const finalAt = Date.now();
      await vi.advanceTimersByTimeAsync(5_000);
      const shown = calls.find((c) => c.call.includes('LASTWORDS'));
      expect(shown, calls.map((c) => c.call).join('\n')).toBeDefined();
      expect(shown!.at - finalAt).toBeLessThanOrEqual(FINAL_HOLD_MS + INTERVAL_MS + FRAME_MS);
      view.done = true;
      await turn.done(view);
    });
  }

  it('done() right after the final answer: the final text goes in done()’s calls only', async () => {
    const calls: Array<{ at: number; call: string }> = [];
    const turn = renderer(calls);
    const view = emptyView();
    view.answer = 'w0 w1';
    turn.update(view);
    await vi.advanceTimersByTimeAsync(2 * INTERVAL_MS);
    const before = calls.length;
    view.answer = 'w0 w1 LASTWORDS';
    view.answerFinal = true;
    turn.update(view);
    await vi.advanceTimersByTimeAsync(100);
    view.done = true;
    const done = turn.done(view);
    await vi.advanceTimersByTimeAsync(2 * INTERVAL_MS);
    await done;
    expect(calls.slice(before).filter((c) => c.call.includes('LASTWORDS'))).toHaveLength(1);
  });
});
