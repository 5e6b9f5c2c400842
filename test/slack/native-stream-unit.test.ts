/**
 * NativeStream against a recording stand-in for the Slack client, on fake timers: the order, timing
 * and content of the calls on one streamed message — first text at once, everything else one
 * interval apart, the last chunks inside `chat.stopStream`, a rewritten answer replaced afterwards.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: recorded Slack calls are open JSON
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NativeStream, type StreamClosing, taskChunks } from '../../adapters/slack/native-stream.js';
import type { SlackClient } from '../../adapters/slack/slack-client.js';
import { silentLogger } from '../../src/logger.js';
import { emptyView, foldEvent } from '../../src/render/view.js';

const INTERVAL = 1000;
const LATENCY = 5;

interface Call {
  method: string;
  at: number;
  args: Record<string, any>;
}

function recordingClient(fail: (method: string) => unknown = () => undefined) {
  const calls: Call[] = [];
  const call = (method: string) => async (args: Record<string, any>) => {
    calls.push({ method, at: Date.now(), args });
    await new Promise((resolve) => setTimeout(resolve, LATENCY));
    const error = fail(method);
    if (error) throw error;
    return { ok: true, ts: '1.000001' };
  };
  const client = {
    chat: {
      startStream: call('chat.startStream'),
      appendStream: call('chat.appendStream'),
      stopStream: call('chat.stopStream'),
      update: call('chat.update'),
      delete: call('chat.delete'),
    },
  } as unknown as SlackClient;
  return { client, calls };
}

const target = { channel: 'C1', threadTs: '1.0', team: 'T1', userId: 'U1' };
const closing: StreamClosing = {
  blocks: [{ type: 'context', elements: [{ type: 'mrkdwn', text: 'footer' }] }] as never,
  locale: 'en',
  conversationId: 'slack:T1:C1:1.0',
  feedback: true,
};
const task = (status: 'in_progress' | 'complete') => ({
  type: 'task_update' as const,
  id: 's1',
  title: 'Searching',
  status,
});
const textOf = (c: Call) =>
  (c.args.chunks ?? [])
    .filter((k: any) => k.type === 'markdown_text')
    .map((k: any) => k.text)
    .join('');
const gaps = (calls: Call[]) => calls.slice(1).map((c, i) => c.at - calls[i]!.at);

describe('NativeStream', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('appends the first answer text at once after a task-card append, then one append per interval', async () => {
    const { client, calls } = recordingClient();
    const stream = new NativeStream(client, target, INTERVAL, silentLogger, () => {});
    stream.set({ tasks: [task('in_progress')], text: '' });
    await vi.advanceTimersByTimeAsync(INTERVAL + 100);
    stream.set({ tasks: [task('complete')], text: '' }); // appended now: a new interval starts
    await vi.advanceTimersByTimeAsync(200);
    stream.set({ tasks: [task('complete')], text: 'First' });
    await vi.advanceTimersByTimeAsync(LATENCY);
    expect(calls.map((c) => c.method)).toEqual([
      'chat.startStream',
      'chat.appendStream',
      'chat.appendStream',
    ]);
    expect(textOf(calls[2]!)).toBe('First');
    expect(calls[2]!.at - calls[1]!.at).toBe(200);
    stream.set({ tasks: [task('complete')], text: 'First words' });
    await vi.advanceTimersByTimeAsync(INTERVAL - 10);
    expect(calls).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(50);
    expect(calls).toHaveLength(4);
    expect(textOf(calls[3]!)).toBe(' words');
  });

  it('finish puts the pending text and the closing blocks in chat.stopStream, one interval after the last append', async () => {
    const { client, calls } = recordingClient();
    const stream = new NativeStream(client, target, INTERVAL, silentLogger, () => {});
    stream.set({ tasks: [task('complete')], text: 'Hello' });
    await vi.advanceTimersByTimeAsync(300);
    stream.set({ tasks: [task('complete')], text: 'Hello world' }); // waits for the interval
    const finished = stream.finish({ tasks: [task('complete')], text: 'Hello world, done.' }, closing);
    await vi.runAllTimersAsync();
    expect(await finished).toBe(true);
    expect(calls.map((c) => c.method)).toEqual(['chat.startStream', 'chat.stopStream']);
    expect(textOf(calls[1]!)).toBe(' world, done.');
    expect(calls[1]!.args.blocks).toEqual(closing.blocks);
    expect(gaps(calls).every((g) => g >= INTERVAL)).toBe(true);
  });

  it('a final text that rewrote the streamed one is put in place with chat.update one interval after the stop', async () => {
    const { client, calls } = recordingClient();
    const stream = new NativeStream(client, target, INTERVAL, silentLogger, () => {});
    stream.set({ tasks: [], text: 'Scout is a bot [1]' });
    await vi.advanceTimersByTimeAsync(LATENCY);
    const finished = stream.finish(
      { tasks: [], text: 'Scout is a bot [[1]](https://example.com/1).' },
      closing,
    );
    await vi.runAllTimersAsync();
    expect(await finished).toBe(true);
    expect(calls.map((c) => c.method)).toEqual(['chat.startStream', 'chat.stopStream', 'chat.update']);
    expect(calls[1]!.args.chunks).toBeUndefined(); // nothing that would not fit the rewritten text
    expect(calls[1]!.args.blocks).toBeUndefined();
    expect(JSON.stringify(calls[2]!.args.blocks)).toContain('https://example.com/1');
    expect(gaps(calls).every((g) => g >= INTERVAL)).toBe(true);
  });

  it('a stop the workspace refuses removes the message and hands the answer back to the caller', async () => {
    const refusal = Object.assign(new Error('refused'), {
      data: { error: 'message_not_in_streaming_state' },
    });
    const { client, calls } = recordingClient((m) => (m === 'chat.stopStream' ? refusal : undefined));
    const onRefused = vi.fn();
    const stream = new NativeStream(client, target, INTERVAL, silentLogger, onRefused);
    stream.set({ tasks: [task('complete')], text: 'Hi' });
    const finished = stream.finish({ tasks: [task('complete')], text: 'Hi there' }, closing);
    await vi.runAllTimersAsync();
    expect(await finished).toBe(false);
    expect(calls.map((c) => c.method)).toEqual(['chat.startStream', 'chat.stopStream', 'chat.delete']);
    expect(onRefused).not.toHaveBeenCalled();
  });

  it('never starts a stream just to end it', async () => {
    const { client, calls } = recordingClient();
    const stream = new NativeStream(client, target, INTERVAL, silentLogger, () => {});
    const finished = stream.finish({ tasks: [], text: 'Short answer' }, closing);
    await vi.runAllTimersAsync();
    expect(await finished).toBe(false);
    expect(calls).toEqual([]);
  });

  it('sends a task card again only when its step changed, also to a body of the same length', async () => {
    const { client, calls } = recordingClient();
    const stream = new NativeStream(client, target, INTERVAL, silentLogger, () => {});
    const view = emptyView();
    foldEvent(view, { type: 'step-start', id: 'a', kind: 'search', title: 'query one' });
    foldEvent(view, { type: 'step-start', id: 'b', kind: 'thinking', title: 'Thinking', body: 'abc' });
    const frame = () => stream.set({ tasks: taskChunks(view.steps, view.sources), text: view.answer });
    const sentTasks = (c: Call) => (c.args.chunks ?? []).filter((k: any) => k.type === 'task_update');
    frame();
    await vi.advanceTimersByTimeAsync(LATENCY);
    expect(sentTasks(calls[0]!).map((t: any) => t.id)).toEqual(['a', 'b']);
    foldEvent(view, { type: 'step-update', id: 'b', body: 'xyz' }); // same length, other text
    frame();
    await vi.advanceTimersByTimeAsync(INTERVAL + LATENCY);
    expect(sentTasks(calls[1]!)).toEqual([expect.objectContaining({ id: 'b', details: 'xyz' })]);
    foldEvent(view, { type: 'text-delta', text: 'Answer' });
    frame();
    await vi.advanceTimersByTimeAsync(INTERVAL + LATENCY);
    foldEvent(view, { type: 'text-delta', text: ' grows' });
    frame();
    await vi.advanceTimersByTimeAsync(INTERVAL + LATENCY);
    expect(calls.slice(2).map((c) => [sentTasks(c).length, textOf(c)])).toEqual([
      [0, 'Answer'],
      [0, ' grows'],
    ]);
    foldEvent(view, { type: 'step-finish', id: 'a', status: 'done' });
    frame();
    await vi.advanceTimersByTimeAsync(INTERVAL + LATENCY);
    expect(sentTasks(calls[4]!)).toEqual([expect.objectContaining({ id: 'a', status: 'complete' })]);
  });
});
