/**
 * The stop hint's budget (stop-hints.ts): what a scope's pacer says it still allows now
 * (ChannelPacer.room), the per-scope count of hinted streams, and the renderer's native stream
 * asking for a ticket before it starts — without one it starts with no hint and owes no edit, and
 * a ticket is always given back (closing edit slotted, start failed, turn over).
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import type { AnswerStream } from '../../src/render/answer-stream.js';
import { ChannelPacer, ChannelPacers } from '../../src/render/channel-pacer.js';
import type { ChannelLimits } from '../../src/render/pace-rules.js';
import { StopHintBudgets } from '../../src/render/stop-hints.js';
import { TurnRenderer } from '../../src/render/turn-renderer.js';
import { emptyView, type TurnView } from '../../src/render/view.js';
import { manualClock } from './manual-clock.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TIER_3_LIKE: ChannelLimits = {
  edit: [
    { max: 5, perMs: 60_000, reserve: 2 },
    { burst: 2, everyMs: 1_200, ordinaryOnly: true },
  ],
};

describe('ChannelPacer.room', () => {
  it('counts what the window still allows urgent writes now: finished, in flight and waiting ones', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer(TIER_3_LIKE, clock);
    // The ordinary-only rate does not hold finals; a kind with no rule is unlimited.
    expect(pacer.room('edit')).toBe(5);
    expect(pacer.room('post')).toBe(Number.POSITIVE_INFINITY);
    await pacer.run('edit', async () => {}, true);
    await pacer.run('edit', async () => {}, true);
    expect(pacer.room('edit')).toBe(3);
    const held = await pacer.acquire('edit', true).slot;
    expect(pacer.room('edit')).toBe(2);
    await pacer.run('edit', async () => {}, true);
    await pacer.run('edit', async () => {}, true);
    expect(pacer.room('edit')).toBe(0);
    // A final waiting for the window is owed too: no room below zero.
    const waiting = pacer.acquire('edit', true);
    expect(pacer.room('edit')).toBe(0);
    held.done();
    await clock.advance(60_000);
    await waiting.slot.then((slot) => slot.done());
    expect(pacer.room('edit')).toBe(4);
  });

  it('a rate holding every write counts its bucket', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer({ edit: [{ burst: 3, everyMs: 1_000 }] }, clock);
    await pacer.run('edit', async () => {}, true);
    expect(pacer.room('edit')).toBe(2);
    await clock.advance(1_000);
    expect(pacer.room('edit')).toBe(3);
  });
});

describe('StopHintBudgets', () => {
  it('gives a ticket while the room covers every hinted stream plus this one; release is once', () => {
    const hints = new StopHintBudgets();
    const a = hints.claim('T1', 2);
    const b = hints.claim('T1', 2);
    expect(a && b).toBeTruthy();
    expect(hints.claim('T1', 2)).toBeUndefined();
    // Another workspace has its own count.
    expect(hints.claim('T2', 1)).toBeDefined();
    a!.release();
    a!.release();
    expect(hints.held('T1')).toBe(1);
    b!.release();
    expect(hints.held('T1')).toBe(0);
  });
});

function streamWorld(claim: () => ReturnType<StopHintBudgets['claim']>, failStart = false) {
  const calls: string[] = [];
  const stream: AnswerStream<string, string, never> = {
    async start(chunks) {
      calls.push(`start ${chunks.text}`);
      if (failStart) throw new Error('network');
      return 's1';
    },
    async append(ref, chunks) {
      calls.push(`append ${ref} ${chunks.text}`);
    },
    async stop(ref, chunks) {
      calls.push(`stop ${ref} ${chunks.text}`);
    },
    task: () => undefined as never,
    text: (markdown) => markdown,
    message: (markdown) => `message ${markdown}`,
    stopHint: () => 'reply stop',
    refusal: () => undefined,
  };
  const renderer = new TurnRenderer<string, string>({
    writer: {
      async post(payload) {
        calls.push(`post ${payload}`);
        return 'm1';
      },
      async edit(ref, payload) {
        calls.push(`edit ${ref} ${payload}`);
      },
    },
    build: { steps: () => undefined, answerPart: (markdown) => `part ${markdown}`, planPart: (m) => m },
    stream,
    claimStopHint: claim,
    limits: { answerChars: 1000 },
    locale: 'en',
    logger: silentLogger,
    intervalMs: 20,
    renderFrameMs: 1,
  });
  return { calls, renderer };
}

const answering = (answer: string, done = false): TurnView => ({
  ...emptyView(),
  answer,
  ...(done ? { answerFinal: true, done: true } : {}),
});

describe('a native stream’s stop hint under its budget', () => {
  it('with a ticket: the hint opens the stream, one edit takes it away, the ticket is given back', async () => {
    const hints = new StopHintBudgets();
    const { calls, renderer } = streamWorld(() => hints.claim('T1', 1));
    renderer.update(answering('Hello there'));
    await sleep(50);
    expect(hints.held('T1')).toBe(1);
    await renderer.done(answering('Hello there.', true));
    expect(calls[0]).toBe('start reply stop\n\nHello there');
    expect(calls.at(-1)).toBe('edit s1 message Hello there.');
    expect(hints.held('T1')).toBe(0);
  });

  it('without one: no hint, and no edit after the stop', async () => {
    const hints = new StopHintBudgets();
    const other = hints.claim('T1', 1);
    const { calls, renderer } = streamWorld(() => hints.claim('T1', 1));
    renderer.update(answering('Hello there'));
    await sleep(50);
    await renderer.done(answering('Hello there.', true));
    expect(calls[0]).toBe('start Hello there');
    expect(calls.filter((c) => c.startsWith('edit'))).toEqual([]);
    other!.release();
    expect(hints.held('T1')).toBe(0);
  });

  it('a start that failed gives its ticket back', async () => {
    const hints = new StopHintBudgets();
    const { renderer } = streamWorld(() => hints.claim('T1', 5), true);
    renderer.update(answering('Hello there'));
    await sleep(50);
    await renderer.done(answering('Hello there.', true));
    expect(hints.held('T1')).toBe(0);
  });

  it('the pacers’ room is the budget: a workspace whose window is spent starts streams without the hint', async () => {
    const clock = manualClock();
    const pacers = new ChannelPacers(clock);
    const limits: ChannelLimits = { edit: [{ max: 1, perMs: 60_000 }] };
    await pacers.channel('T1', limits).run('edit', async () => {}, true);
    expect(pacers.room('T1', limits, 'edit')).toBe(0);
    const hints = new StopHintBudgets();
    expect(hints.claim('T1', pacers.room('T1', limits, 'edit'))).toBeUndefined();
  });
});
