/**
 * The stop hint of a native stream ("reply stop": a stream carries no buttons). Streamed text cannot
 * be taken back, so the hint is the stream's first task card, whose state the stream's own calls can
 * change: chat.stopStream closes it ("Answer ended"). No chat.update is spent on it, so every stream
 * says how to stop it however many end together, and no finished answer says "reply stop" — checked
 * through the real Bolt app and renderer against a fake Web API that enforces Tier 3 the way Slack
 * does (429 with Retry-After, on a time base shrunk like the surface's edit interval).
 */
// biome-ignore-all lint/suspicious/noExplicitAny: Slack chunks and blocks are open JSON
import { afterEach, describe, expect, it } from 'vitest';
import { STOP_HINT_TASK_ID } from '../../adapters/slack/render-blocks.js';
import { ANSWERS_BOT, ANSWERS_TEAM, mentionThread } from '../helpers/concurrent-answers.js';
import { type FakeMessage, SLACK_TIER_3 } from '../helpers/fake-slack-api.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { type SlackHarness, startSlackHarness } from './slack-harness.js';

/** The surface's edit interval: a tenth of Slack's second, so Slack's minute is 6 s here. */
const EDIT_INTERVAL_MS = 100;
const SCALE = EDIT_INTERVAL_MS / 1000;
const TIER_3 = { max: SLACK_TIER_3.max, perMs: SLACK_TIER_3.perMs * SCALE };
/** More answers than Tier 3's minute could edit, all streaming at once. */
const MANY = TIER_3.max + 12;
const ANSWER = Array.from(
  { length: 8 },
  (_, i) => `Sentence ${i} of the answer, streamed a piece at a time.`,
).join(' ');

/** The stop hint's card as the message shows it: the last task_update of its id. */
const hintCard = (m: FakeMessage) =>
  m.chunks.filter((c: any) => c.type === 'task_update' && c.id === STOP_HINT_TASK_ID).at(-1);

describe('Slack: a streamed answer says how to stop it, and its own stop closes the hint', () => {
  let s: SlackHarness | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it(`${MANY} answers at once under Tier 3: every stream shows the hint, every stop closes it, no chat.update`, async () => {
    s = await startSlackHarness({
      editIntervalMs: EDIT_INTERVAL_MS,
      nativeStreaming: true,
      fake: {
        botUserId: ANSWERS_BOT,
        teamId: ANSWERS_TEAM,
        methodLimits: { 'chat.update': TIER_3, 'chat.delete': TIER_3 },
      },
    });
    s.h.llm.fallback = () => textReply(ANSWER, { pieces: 40, chunkDelayMs: 50 });
    const threads = Array.from({ length: MANY }, (_, i) => mentionThread(i));
    const acks = await Promise.all(threads.map((t) => s!.event(t.envelope)));
    expect(acks.map((r) => r.status)).toEqual(threads.map(() => 200));
    await s.surface.idle();

    // Each stream opened with the hint card, running, in the asker's words …
    const starts = s.slack.callsTo('chat.startStream');
    expect(starts).toHaveLength(MANY);
    for (const start of starts)
      expect(start.args.chunks[0]).toEqual({
        type: 'task_update',
        id: STOP_HINT_TASK_ID,
        title: 'To stop this answer, reply “stop” in this thread',
        status: 'in_progress',
      });
    // … and its stop, the stream's last call, closed it: nothing was left to take away afterwards.
    for (const stop of s.slack.callsTo('chat.stopStream'))
      expect(stop.args.chunks).toContainEqual({
        type: 'task_update',
        id: STOP_HINT_TASK_ID,
        title: 'Answer ended',
        status: 'complete',
      });
    for (const t of threads) {
      const [m] = s.slack.messagesIn(t.channel, t.ts);
      expect(m!.streaming).toBe(false);
      expect(m!.streamedText).toBe(ANSWER);
      expect(hintCard(m!)).toMatchObject({ title: 'Answer ended', status: 'complete' });
    }
    expect(s.slack.callsTo('chat.update')).toEqual([]);
    expect(s.slack.violations).toEqual([]);
  }, 60_000);
});
