/**
 * The stop hint of a native stream ("reply stop": a stream carries no buttons) cannot be taken back
 * by the stream; one chat.update after chat.stopStream removes it. chat.update is Tier 3 (about 50
 * a minute per workspace), so when more answers end together than the workspace's minute can edit,
 * the last ones went on saying "reply stop" for up to a minute, finished, waiting for the window.
 * Scout shows the hint only where the workspace can still afford its closing edit: through the real
 * Bolt app and renderer against a fake Web API that enforces Tier 3 the way Slack does (429 with
 * Retry-After, on a time base shrunk like the surface's edit interval), no finished answer shows
 * the hint for longer than a moment after its stop, and a quiet workspace still shows it.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: Slack blocks are open JSON
import { afterEach, describe, expect, it } from 'vitest';
import { streamStopHint } from '../../adapters/slack/render-blocks.js';
import {
  ANSWERS_BOT,
  ANSWERS_TEAM,
  type AnswerThread,
  mentionThread,
} from '../helpers/concurrent-answers.js';
import { type FakeMessage, type FakeSlackApi, SLACK_TIER_3 } from '../helpers/fake-slack-api.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { type SlackHarness, startSlackHarness } from './slack-harness.js';

/** The surface's edit interval: a tenth of Slack's second, so Slack's minute is 6 s here. */
const EDIT_INTERVAL_MS = 100;
const SCALE = EDIT_INTERVAL_MS / 1000;
const TIER_3 = { max: SLACK_TIER_3.max, perMs: SLACK_TIER_3.perMs * SCALE };
/** More answers than Tier 3's minute can edit, all streaming at once. */
const MANY = TIER_3.max + 12;
/**
 * Longest a finished answer may still show the hint after its stop: 10 of Slack's seconds (a
 * loaded machine), where waiting for the window took up to a minute.
 */
const HINT_AFTER_STOP_MS = 10_000 * SCALE;

const HINT = streamStopHint('en');
const ANSWER = Array.from(
  { length: 8 },
  (_, i) => `Sentence ${i} of the answer, streamed a piece at a time.`,
).join(' ');

/** What the thread shows of the streamed message: its text and blocks. */
const shows = (m: FakeMessage, text: string) =>
  m.text.includes(text) || JSON.stringify(m.blocks).includes(text);

/**
 * Polls each thread's streamed message: when its stream stopped, and when it first showed no stop
 * hint once stopped (what the user reads), until every one did or `timeoutMs` passed.
 */
async function watchHints(
  slack: FakeSlackApi,
  threads: AnswerThread[],
  timeoutMs: number,
): Promise<Map<string, { stoppedAt: number; clearAt?: number }>> {
  const seen = new Map<string, { stoppedAt: number; clearAt?: number }>();
  const deadline = Date.now() + timeoutMs;
  const cleared = () => [...seen.values()].filter((v) => v.clearAt !== undefined).length;
  while (cleared() < threads.length && Date.now() < deadline) {
    const now = Date.now();
    for (const t of threads) {
      const m = slack.messagesIn(t.channel, t.ts)[0];
      if (!m || m.streaming) continue;
      const entry = seen.get(t.channel) ?? { stoppedAt: now };
      seen.set(t.channel, entry);
      if (entry.clearAt === undefined && !shows(m, HINT) && shows(m, 'Sentence 7')) entry.clearAt = now;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return seen;
}

describe('Slack: the stream’s stop hint only where Tier 3 can take it away (chat.update 50 per minute per workspace)', () => {
  let s: SlackHarness | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  const start = async (answers: number) => {
    s = await startSlackHarness({
      editIntervalMs: EDIT_INTERVAL_MS,
      nativeStreaming: true,
      fake: {
        botUserId: ANSWERS_BOT,
        teamId: ANSWERS_TEAM,
        methodLimits: { 'chat.update': TIER_3, 'chat.delete': TIER_3 },
      },
    });
    // Each answer streams for about 2 s (20 of Slack's seconds): every turn is still streaming when
    // the first ones end.
    s.h.llm.fallback = () => textReply(ANSWER, { pieces: 40, chunkDelayMs: 50 });
    const threads = Array.from({ length: answers }, (_, i) => mentionThread(i));
    const acks = await Promise.all(threads.map((t) => s!.event(t.envelope)));
    expect(acks.map((r) => r.status)).toEqual(threads.map(() => 200));
    return { s, threads };
  };

  const hinted = (s: SlackHarness) =>
    s.slack
      .callsTo('chat.startStream')
      .filter((c) => (c.args.chunks ?? []).some((k: any) => String(k.text ?? '').includes(HINT)));

  it(`${MANY} answers ending together: none is left saying "reply stop" after its stop; chat.update stays within Tier 3`, async () => {
    const { s, threads } = await start(MANY);
    const seen = await watchHints(s.slack, threads, 120_000 * SCALE);
    await s.surface.idle();

    // Every thread's answer is final, without the hint, soon after its stream stopped.
    const late = threads.flatMap((t) => {
      const entry = seen.get(t.channel);
      if (!entry) return [`${t.channel}: never stopped`];
      if (entry.clearAt === undefined) return [`${t.channel}: still shows the stop hint`];
      const lag = entry.clearAt - entry.stoppedAt;
      return lag > HINT_AFTER_STOP_MS ? [`${t.channel}: showed the stop hint ${lag} ms after its stop`] : [];
    });
    expect(late).toEqual([]);
    for (const t of threads) {
      const [m] = s.slack.messagesIn(t.channel, t.ts);
      expect(shows(m!, HINT)).toBe(false);
      expect(m!.streamedText).toContain('Sentence 7');
    }
    // The hint was shown while the workspace could afford it, and never beyond its window.
    const withHint = hinted(s).length;
    expect(withHint).toBeGreaterThan(0);
    expect(withHint).toBeLessThanOrEqual(TIER_3.max);
    // One closing edit per hinted stream, none refused: Scout kept to Tier 3 by itself.
    const updates = s.slack.callsTo('chat.update');
    expect(updates.filter((c) => c.status === 429)).toEqual([]);
    expect(updates.length).toBe(withHint);
    expect(s.slack.violations).toEqual([]);
  }, 240_000);

  it('a few answers at once: each stream says how to stop it while it runs, and the hint goes at its end', async () => {
    const { s, threads } = await start(3);
    const seen = await watchHints(s.slack, threads, 60_000 * SCALE);
    await s.surface.idle();

    expect(hinted(s)).toHaveLength(threads.length);
    for (const t of threads) {
      const entry = seen.get(t.channel);
      expect(entry?.clearAt).toBeDefined();
      expect(entry!.clearAt! - entry!.stoppedAt).toBeLessThanOrEqual(HINT_AFTER_STOP_MS);
      const [m] = s.slack.messagesIn(t.channel, t.ts);
      // While it streamed the message said how to stop it; now it is the answer alone.
      expect(m!.streamedText.startsWith(HINT)).toBe(true);
      expect(shows(m!, HINT)).toBe(false);
    }
    expect(s.slack.callsTo('chat.update')).toHaveLength(threads.length);
    expect(s.slack.violations).toEqual([]);
  }, 60_000);
});
