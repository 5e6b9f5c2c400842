// biome-ignore-all lint/suspicious/noExplicitAny: recorded Slack calls are open JSON
import { afterEach, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import {
  buttonPayload,
  dmThread,
  type SlackHarness,
  startSlackHarness,
  TEST_EDIT_INTERVAL_MS,
  visibleText,
  waitForButton,
} from './slack-harness.js';

const thread = dmThread();
const { mention, channel, threadTs, conversation } = thread;

/** An answer streamed as `pieces` chunks, `delayMs` apart. */
function slowTextReply(pieces: number, delayMs: number) {
  const base = textReply('x');
  const [first, , ...tail] = base.chunks as any[];
  const words = Array.from({ length: pieces }, (_, i) => ({
    ...first,
    choices: [{ index: 0, delta: { content: `word${i} ` }, logprobs: null, finish_reason: null }],
  }));
  return { chunks: [first, ...words, ...tail], chunkDelayMs: delayMs };
}

function scriptAgentTurn(s: SlackHarness, answer: string) {
  s.h.llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'scout news' } }]));
  s.h.llm.fallback = () => textReply(answer);
}

describeWithShared('Slack rendering end to end', () => {
  let s: SlackHarness;
  afterEach(async () => {
    await s.close();
  });

  it('an agent turn shows collapsible steps and an answer with linked citations', async () => {
    s = await startSlackHarness({ env: { DEFAULT_MODE: 'agent' } });
    scriptAgentTurn(s, 'Scout is a bot [1]. It also searches [2].');
    await s.event(mention);
    await s.surface.idle();
    const [steps, answer, ...rest] = s.slack.messagesIn(channel, threadTs);
    expect(rest).toEqual([]);
    const containers = steps!.blocks.filter((b) => b.type === 'container');
    expect(containers.length).toBeGreaterThan(0);
    expect(containers.every((c) => c.is_collapsible === true)).toBe(true);
    // Finished steps collapse; the search step names its query.
    expect(containers.some((c) => c.default_collapsed === true)).toBe(true);
    expect(visibleText(steps!.blocks)).toContain('scout news');
    // Done: no Stop button left.
    expect(JSON.stringify(steps!.blocks)).not.toContain('scout_stop');
    const md = answer!.blocks.find((b) => b.type === 'markdown')!.text as string;
    expect(md).toContain('https://example.com/scout-news/1');
    expect(md).toMatch(/\[\[?1\]?\]\(https:\/\/example\.com\/scout-news\/1\)/);
    // Footer and feedback buttons under the final answer.
    expect(answer!.blocks.some((b) => b.type === 'context')).toBe(true);
    expect(JSON.stringify(answer!.blocks)).toContain('scout_feedback_up');
    expect(s.slack.violations).toEqual([]);
    // Feedback is acknowledged ephemerally.
    await s.action(buttonPayload('scout_feedback_up', conversation, { channel, ts: answer!.ts, threadTs }));
    await s.slack.waitFor(() => s.slack.callsTo('chat.postEphemeral').length === 1, 3000, 'feedback ack');
  });

  it('falls back to Show/Hide details when the workspace rejects container blocks', async () => {
    s = await startSlackHarness({ env: { DEFAULT_MODE: 'agent' } });
    s.slack.rejectContainers = true;
    scriptAgentTurn(s, 'Answer [1].');
    await s.event(mention);
    await s.surface.idle();
    const [steps] = s.slack.messagesIn(channel, threadTs);
    expect(steps!.blocks.some((b) => b.type === 'container')).toBe(false);
    const toggle = steps!.blocks
      .flatMap((b) => b.elements ?? [])
      .find((e: any) => e.action_id === 'scout_toggle_details');
    expect(toggle?.text.text).toBe('Show details');
    const collapsedText = visibleText(steps!.blocks);
    await s.action(buttonPayload('scout_toggle_details', conversation, { channel, ts: steps!.ts, threadTs }));
    await s.slack.waitFor(
      () => JSON.stringify(steps!.blocks).includes('Hide details'),
      3000,
      'expanded steps',
    );
    expect(visibleText(steps!.blocks).length).toBeGreaterThan(collapsedText.length);
    expect(s.slack.violations.filter((v) => !v.detail.includes('container'))).toEqual([]);
  });

  it('a 25,000-character answer arrives complete across messages with no call over a limit', async () => {
    s = await startSlackHarness();
    const paragraphs = Array.from({ length: 250 }, (_, i) =>
      `Paragraph ${i} ${'lorem ipsum '.repeat(8)}`.slice(0, 99),
    );
    const long = paragraphs.join('\n\n');
    expect(long.length).toBeGreaterThan(25_000);
    s.h.llm.enqueue(textReply(long));
    await s.event(mention);
    await s.surface.idle();
    const posts = s.slack.messagesIn(channel, threadTs);
    expect(posts.length).toBeGreaterThanOrEqual(3);
    const shown = posts.map((m) => m.blocks.find((b) => b.type === 'markdown')!.text as string).join('\n\n');
    for (const p of paragraphs) expect(shown).toContain(p);
    expect(s.slack.violations).toEqual([]);
    expect(s.slack.calls.every((c) => c.response.ok)).toBe(true);
  });

  it('never edits one message more often than the edit interval while the answer streams', async () => {
    s = await startSlackHarness({ env: { DEFAULT_MODE: 'agent' } });
    s.h.llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'edits' } }]));
    s.h.llm.fallback = () => slowTextReply(60, 15);
    await s.event(mention);
    await s.surface.idle();
    // ~900 ms of streaming at a 150 ms interval: several edits of the answer message.
    const messages = s.slack.messagesIn(channel, threadTs);
    const answer = messages.at(-1)!;
    expect(answer.edits.length).toBeGreaterThanOrEqual(3);
    expect(answer.edits.length).toBeLessThan(20);
    // The intermediate edits of every message are an interval apart (timers may fire a millisecond
    // early relative to Date.now()); the final edit goes as soon as the answer ended (issue 30).
    for (const message of messages) {
      const intermediate = message.edits.slice(0, -1);
      for (let i = 1; i < intermediate.length; i++)
        expect(intermediate[i]! - intermediate[i - 1]!).toBeGreaterThanOrEqual(TEST_EDIT_INTERVAL_MS - 5);
    }
    expect(s.slack.violations).toEqual([]);
  });

  it('Stop cancels a running turn', async () => {
    s = await startSlackHarness();
    s.h.llm.enqueue({ ...textReply('slow '.repeat(200)), chunkDelayMs: 200 });
    await s.event(mention);
    const { press } = await waitForButton(s, thread, 'scout_stop', 'a message with a Stop button');
    const res = await press();
    expect(res.status).toBe(200);
    await s.surface.idle();
    const last = s.slack.messagesIn(channel, threadTs).at(-1)!;
    expect(JSON.stringify(last.blocks)).not.toContain('scout_stop');
    expect(visibleText(last.blocks)).toMatch(/stop/i);
  });
});

describeWithShared('Slack native AI streaming', () => {
  let s: SlackHarness;
  afterEach(async () => {
    await s.close();
  });

  it('streams with task cards where chat.startStream works', async () => {
    s = await startSlackHarness({ env: { DEFAULT_MODE: 'agent' }, nativeStreaming: true });
    scriptAgentTurn(s, 'Streamed answer [1].');
    await s.event(mention);
    await s.surface.idle();
    expect(s.slack.callsTo('chat.startStream')).toHaveLength(1);
    expect(s.slack.callsTo('chat.stopStream')).toHaveLength(1);
    const start = s.slack.callsTo('chat.startStream')[0]!;
    expect(start.args.recipient_user_id).toBe(mention.event.user);
    expect(start.args.recipient_team_id).toBe(mention.team_id);
    const chunks = [
      ...s.slack.calls.filter((c) => c.method.endsWith('Stream')).flatMap((c) => c.args.chunks ?? []),
    ];
    const task = chunks.find((c: any) => c.type === 'task_update' && c.sources?.length);
    expect(task?.sources[0].url).toMatch(/^https:\/\/example\.com\//);
    const posts = s.slack.messagesIn(channel, threadTs);
    expect(posts).toHaveLength(1); // only the streamed answer: no message posted to be deleted
    expect(posts[0]!.text + visibleText(posts[0]!.blocks)).toContain('Streamed answer');
    expect(s.slack.violations).toEqual([]);
  });

  it('completes via post + update when chat.startStream answers feature_not_enabled', async () => {
    s = await startSlackHarness({ env: { DEFAULT_MODE: 'agent' }, nativeStreaming: true });
    s.slack.streamingError = 'feature_not_enabled';
    scriptAgentTurn(s, 'Fallback answer [1].');
    await s.event(mention);
    await s.surface.idle();
    expect(s.slack.callsTo('chat.startStream').length).toBeGreaterThan(0);
    const posts = s.slack.messagesIn(channel, threadTs);
    expect(posts.map((m) => visibleText(m.blocks)).join('\n')).toContain('Fallback answer');
    expect(posts.some((m) => m.blocks.some((b) => b.type === 'container'))).toBe(true);
    // The refusal is remembered for the workspace: the next turn does not try again.
    const before = s.slack.callsTo('chat.startStream').length;
    s.h.llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'again' } }]));
    await s.event({ ...mention, event: { ...mention.event, ts: '1767376999.000001' } });
    await s.surface.idle();
    expect(s.slack.callsTo('chat.startStream').length).toBe(before);
  });
});
