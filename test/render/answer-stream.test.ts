/**
 * The renderer's native-stream capability against a recording stream and writer (no platform): what
 * goes into the stream and when the renderer falls back to ordinary messages. The Slack end-to-end
 * behaviour is in test/slack/slack-native-turns.test.ts and the conformance suite's slack-native.
 */
import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import type { AnswerStream, StreamChunks } from '../../src/render/answer-stream.js';
import { ChannelPacers } from '../../src/render/channel-pacer.js';
import type { ChannelLimits } from '../../src/render/pace-rules.js';
import type { AnswerControls } from '../../src/render/message-writer.js';
import type { TurnRendererOptions } from '../../src/render/renderer-options.js';
import { TurnRenderer } from '../../src/render/turn-renderer.js';
import { emptyView, type StepView, type TurnView } from '../../src/render/view.js';
import { manualClock } from './manual-clock.js';

const INTERVAL_MS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Card {
  id: string;
  status: string;
  body: string;
}

function world(
  options: {
    refuseStart?: 'workspace' | 'turn';
    pace?: Pick<TurnRendererOptions<string, string>, 'channel' | 'clock'> & { limits?: ChannelLimits };
  } = {},
) {
  const calls: string[] = [];
  let n = 0;
  const refused = vi.fn();
  const stream: AnswerStream<string, string, Card> = {
    async start(chunks: StreamChunks<Card>) {
      calls.push(`start ${JSON.stringify(chunks)}`);
      if (options.refuseStart) throw Object.assign(new Error('no'), { code: options.refuseStart });
      return `s${++n}`;
    },
    async append(ref, chunks) {
      calls.push(`append ${ref} ${JSON.stringify(chunks)}`);
    },
    async stop(ref, chunks, controls) {
      calls.push(`stop ${ref} ${JSON.stringify(chunks)} ${controls ? 'closing' : ''}`);
    },
    task: (step: StepView) => ({ id: step.id, status: step.status, body: step.body }),
    text: (markdown) => markdown,
    message: (markdown: string, _controls: AnswerControls, tasks: Card[]) =>
      `message ${markdown} (${tasks.length} cards)`,
    refusal: (error) => (error as { code?: 'workspace' | 'turn' }).code,
    refused,
  };
  const renderer = new TurnRenderer<string, string>({
    writer: {
      async post(payload) {
        calls.push(`post ${payload}`);
        return `m${++n}`;
      },
      async edit(ref, payload) {
        calls.push(`edit ${ref} ${payload}`);
      },
    },
    build: {
      steps: (view) => `steps ${view.steps.map((s) => `${s.id}:${s.status}`).join(',')}`,
      answerPart: (markdown, controls) => `part ${markdown}${controls.feedback ? ' 👍' : ''}`,
      planPart: (markdown) => markdown,
    },
    stream,
    limits: { answerChars: 1000, ...(options.pace?.limits ? { channel: options.pace.limits } : {}) },
    ...(options.pace?.channel ? { channel: options.pace.channel } : {}),
    ...(options.pace?.clock ? { clock: options.pace.clock } : {}),
    locale: 'en',
    logger: silentLogger,
    intervalMs: INTERVAL_MS,
    renderFrameMs: 1,
  });
  return { calls, renderer, refused };
}

function step(id: string, body: string, status: StepView['status'] = 'running'): StepView {
  return { id, kind: 'tool', title: `step ${id}`, body, status, collapsed: false };
}

function finished(view: TurnView, answer: string): TurnView {
  return { ...view, answer, answerFinal: true, done: true, footer: 'stats' };
}

describe('TurnRenderer with a native answer stream', () => {
  it('sends a task card again when its step changes to another text of the same length', async () => {
    const { calls, renderer } = world();
    const view = emptyView();
    view.steps.push(step('s1', 'aaaa'));
    renderer.update(view);
    await sleep(INTERVAL_MS * 3);
    view.steps[0]!.body = 'bbbb';
    renderer.update(view);
    await sleep(INTERVAL_MS * 3);
    await renderer.done(finished(view, 'The answer.'));
    expect(calls[0]).toContain('"body":"aaaa"');
    expect(calls.some((c) => c.startsWith('append') && c.includes('"body":"bbbb"'))).toBe(true);
    expect(calls.at(-1)).toMatch(/^stop s1 .*The answer\..* closing$/);
    expect(calls.filter((c) => c.startsWith('post') || c.startsWith('edit'))).toEqual([]);
  });

  it('a stream refused before anything showed: the steps message, then the answer, as ordinary messages', async () => {
    const { calls, renderer, refused } = world({ refuseStart: 'workspace' });
    const view = emptyView();
    view.steps.push(step('s1', 'searching'));
    renderer.update(view);
    await sleep(INTERVAL_MS * 3);
    view.steps[0]!.status = 'done';
    view.answer = 'Streaming text';
    renderer.update(view);
    await sleep(INTERVAL_MS * 3);
    await renderer.done(finished(view, 'Streaming text, final.'));
    expect(refused).toHaveBeenCalledWith('workspace', expect.anything());
    expect(calls.filter((c) => c.startsWith('start'))).toHaveLength(1);
    const writes = calls.filter((c) => !c.startsWith('start'));
    expect(writes[0]).toMatch(/^post steps s1/);
    expect(writes.find((c) => c.includes('part'))).toMatch(/^post part Streaming text/);
    expect(writes.at(-1)).toBe('edit m2 part Streaming text, final. 👍');
    expect(calls.some((c) => c.startsWith('append') || c.startsWith('stop'))).toBe(false);
  });

  it('never starts a stream only to end it: a final with nothing shown is one ordinary post', async () => {
    const { calls, renderer } = world();
    const view = emptyView();
    await renderer.done(finished(view, 'Only the final.'));
    expect(calls).toEqual(['post message Only the final. (0 cards)']);
  });

  it('that one ordinary post waits for the channel’s post limit, where the stream’s calls would not', async () => {
    const clock = manualClock();
    const pacers = new ChannelPacers(clock);
    const limits: ChannelLimits = { post: [{ max: 1, perMs: 60_000 }] };
    // Another turn in the channel just posted its message.
    await pacers.channel('C1', limits).run('post', async () => {});
    const { calls, renderer } = world({ pace: { channel: { key: 'C1', pacers }, clock, limits } });
    await clock.until(renderer.done(finished(emptyView(), 'Only the final.')));
    expect(calls).toEqual(['post message Only the final. (0 cards)']);
    expect(clock.now()).toBe(60_000);
  });
});
