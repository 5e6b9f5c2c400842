/**
 * Citations as Slack shows them while a cited agent answer streams (issue 58 item 2): every
 * `chat.postMessage` / `chat.update` of the answer, and every text `chat.startStream` /
 * `chat.appendStream` / `chat.stopStream` adds to a native stream, shows a `[n]` whose source is known
 * as a link, never as the raw marker the model wrote; and because what streamed is the final text's
 * beginning, a native stream ends with its stop (the References in it) and no `chat.update` after.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: recorded Slack calls are open JSON
import { afterEach, expect, it } from 'vitest';
import type { RecordedCall } from '../helpers/fake-slack-api.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { describeWithShared } from '../helpers/fixtures.js';
import { wrapCore } from '../helpers/wrap-core.js';
import { dmFixture, type SlackHarness, startSlackHarness, TEST_EDIT_INTERVAL_MS } from './slack-harness.js';

const { mention } = dmFixture();
const channel = mention.event.channel as string;

/** A cited answer: single, adjacent and listed markers, one with no source, across paragraphs. */
const ANSWER = Array.from(
  { length: 4 },
  (_, i) =>
    `Part ${i}: Scout is a bot [1]. It answers in threads [2] and cites [1][2]; ` +
    `both pages agree [1, 3] while an unknown one [42] is dropped. ${'More words follow here. '.repeat(3)}`,
).join('\n\n');

/** The search's sources are 1–5 (the fake returns five pages): any of them raw is a leak. */
const RAW_KNOWN = /(?<!\[)\[(?:[1-5](?:\s*,\s*\d+)*|\d+(?:\s*,\s*\d+)*\s*,\s*[1-5])\](?!\()/;
/** Source 1 as a link (the fake search's pages are https://example.com/<query>/<n>). */
const LINKED = /\[\[1\]\]\(https:\/\/example\.com\/[\w-]+\/1\)/;

const markdownOf = (call: RecordedCall): string =>
  (call.args.blocks ?? [])
    .filter((b: any) => b.type === 'markdown')
    .map((b: any) => String(b.text))
    .join('\n');
const streamTextOf = (call: RecordedCall): string =>
  (call.args.chunks ?? [])
    .filter((c: any) => c.type === 'markdown_text')
    .map((c: any) => String(c.text))
    .join('');

describeWithShared('Slack: citations linked while the answer streams', () => {
  let s: SlackHarness;
  afterEach(async () => {
    await s.close();
  });

  /** Agent mode searches with a tool call; chat mode searches the question first (search on). */
  async function citedTurn(nativeStreaming: boolean, mode: 'agent' | 'chat' = 'agent'): Promise<void> {
    s = await startSlackHarness({
      env: { DEFAULT_MODE: mode },
      nativeStreaming,
      // The turn's end comes a while after its final answer (a slow history store): that answer
      // still goes in the final state's own call, not in one of its own before it.
      // (The renderer gets each view as it was when sent: the core marks its own view done before
      // the delay.)
      core: (scout) =>
        wrapCore(scout, (sink) => ({
          update: (view) => sink.update({ ...view }),
          done: async (view) => {
            await new Promise((resolve) => setTimeout(resolve, TEST_EDIT_INTERVAL_MS * 3));
            return sink.done(view);
          },
        })),
    });
    if (mode === 'agent')
      s.h.llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'scout news' } }]));
    else
      await s.h.scout.runCommand('search', 'on', {
        channelId: `slack:${mention.team_id}:${channel}`,
        userId: mention.event.user as string,
      });
    // Three characters a chunk (markers arrive in pieces), over several edit intervals.
    s.h.llm.fallback = () =>
      textReply(ANSWER, {
        pieces: Math.ceil(ANSWER.length / 3),
        chunkDelayMs: Math.ceil((TEST_EDIT_INTERVAL_MS * 8) / (ANSWER.length / 3)),
      });
    await s.event(mention);
    await s.surface.idle();
  }

  it.each<['agent' | 'chat']>([['agent'], ['chat']])(
    'post and update, %s mode: no payload of the answer ever shows a raw [n] whose source is known',
    async (mode) => {
      await citedTurn(false, mode);
      const answerCalls = s.slack.calls.filter(
        (c) =>
          (c.method === 'chat.postMessage' || c.method === 'chat.update') &&
          c.args.channel === channel &&
          markdownOf(c).includes('Part 0:'),
      );
      const frames = answerCalls.filter((c) => !markdownOf(c).includes('References'));
      // The answer was seen while it streamed, more than once, with its links already in place.
      expect(frames.length).toBeGreaterThanOrEqual(2);
      expect(frames.some((c) => LINKED.test(markdownOf(c)))).toBe(true);
      for (const call of answerCalls) expect(markdownOf(call), call.method).not.toMatch(RAW_KNOWN);
      // The References arrive once, in the final edit (not in an edit of their own before it).
      expect(answerCalls.filter((c) => markdownOf(c).includes('References'))).toEqual([answerCalls.at(-1)]);
      const final = markdownOf(answerCalls.at(-1)!);
      expect(final).toContain('References');
      expect(final).not.toContain('[42]');
      // Each frame is the final text's beginning (the "…" of a still-running part aside).
      for (const call of frames) expect(final.startsWith(markdownOf(call).replace(/\s*…$/, ''))).toBe(true);
      expect(s.slack.violations).toEqual([]);
    },
  );

  it('native stream: every streamed text is linked, and the stop carries the rest with no chat.update after it', async () => {
    await citedTurn(true);
    const [start] = s.slack.callsTo('chat.startStream');
    const ts = start!.response.ts as string;
    const streamCalls = s.slack.calls.filter(
      (c) =>
        c === start ||
        ((c.method === 'chat.appendStream' || c.method === 'chat.stopStream') && c.args.ts === ts),
    );
    // What the stream shows after each call: everything appended so far.
    let shown = '';
    for (const call of streamCalls) {
      shown += streamTextOf(call);
      expect(shown, call.method).not.toMatch(RAW_KNOWN);
    }
    expect(
      streamCalls.filter((c) => c.method === 'chat.appendStream' && LINKED.test(streamTextOf(c))),
    ).not.toEqual([]);
    // The References (the only text the final adds) travel in the stop, not in an append before it.
    const [stop] = s.slack.callsTo('chat.stopStream');
    expect(streamTextOf(stop!)).toContain('References');
    // The final text only grew what streamed: nothing rewrites the streamed message afterwards.
    expect(s.slack.callsTo('chat.update').filter((c) => c.args.ts === ts)).toEqual([]);
    const message = s.slack.messagesIn(channel).find((m) => m.ts === ts)!;
    expect(message.streamedText).toMatch(LINKED);
    expect(message.streamedText).toContain('**References**');
    expect(message.streamedText).not.toContain('[42]');
    expect(JSON.stringify(message.blocks)).toContain('scout_feedback_up');
    expect(s.slack.violations).toEqual([]);
  });
});
