/**
 * Issue 27 point 12: chat.update is Tier 3 — about 50 calls per minute per workspace, whatever the
 * channel. Sixteen long cited answers at once in one workspace, through the real Bolt app and
 * renderer, against a fake Web API that enforces that limit the way Slack does (HTTP 429 with
 * Retry-After, on a time base shrunk like the surface's edit interval). Every answer must end
 * final — complete, citations linked, no Stop left — within a bound, with almost no 429s: Scout
 * paces the workspace's edits itself instead of letting Slack refuse them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ANSWERS_BOT,
  ANSWERS_TEAM,
  finalsOutOfOrder,
  longAnswerModel,
  mentionThread,
  notFinal,
  noteDone,
  PARAGRAPHS_40K,
  watchFinals,
} from '../helpers/concurrent-answers.js';
import { SLACK_TIER_3 } from '../helpers/fake-slack-api.js';
import { type SlackHarness, startSlackHarness } from './slack-harness.js';

const ANSWERS = 16;
/** The surface's edit interval: a tenth of Slack's second, so Slack's minute is 6 s here. */
const EDIT_INTERVAL_MS = 100;
const SCALE = EDIT_INTERVAL_MS / 1000;
const TIER_3 = { max: SLACK_TIER_3.max, perMs: SLACK_TIER_3.perMs * SCALE };
/** Share of chat.update calls Slack may refuse (it was 82 % before the workspace was paced). */
const MAX_REFUSED_SHARE = 0.05;
/** Slack time beyond what Tier 3 needs for the final edits themselves (a loaded machine, the last part). */
const MARGIN_MS = 30_000 * SCALE;
/** Issue 58 item 2: the oldest answer is complete this soon after its model ended (Slack time). */
const FIRST_FINAL_MS = 10_000 * SCALE;
/** Finals this close together (one Slack second) count as landing together. */
const SAME_MOMENT_MS = 1_000 * SCALE;

describe('Slack: sixteen long answers at once under Tier 3 (chat.update 50 per minute per workspace)', () => {
  let s: SlackHarness | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  // Classic: steps message + answer parts, all edited with chat.update. Native: the answer's first
  // message streams (its closing edit after chat.stopStream is a chat.update too), the rest as classic.
  it.each<[string, boolean]>([
    ['post + chat.update', false],
    ['native streaming', true],
  ])(
    '%s: every answer lands final, one after the other, within what Tier 3 allows; Slack refuses almost no update',
    async (_mode, nativeStreaming) => {
      // When the core handed each turn's final view to the renderer (its model had finished), and
      // when each turn arrived (the core got its message).
      const doneAt = new Map<string, number>();
      const arrivedAt = new Map<string, number>();
      s = await startSlackHarness({
        env: { DEFAULT_MODE: 'agent', LLM_TIMEOUT_MS: '30000' },
        editIntervalMs: EDIT_INTERVAL_MS,
        nativeStreaming,
        fake: {
          botUserId: ANSWERS_BOT,
          teamId: ANSWERS_TEAM,
          methodLimits: { 'chat.update': TIER_3, 'chat.delete': TIER_3 },
        },
        core: (scout) => noteDone(scout, doneAt, arrivedAt),
      });
      // Each answer streams over about 2 s (20 of Slack's seconds).
      s.h.llm.fallback = longAnswerModel({ paragraphs: PARAGRAPHS_40K, pieces: 100, chunkDelayMs: 20 });

      const threads = Array.from({ length: ANSWERS }, (_, i) => mentionThread(i));
      const acks = await Promise.all(threads.map((t) => s!.event(t.envelope)));
      expect(acks.map((r) => r.status)).toEqual(threads.map(() => 200));

      // When each thread first showed its final answer, as a user would see it (the bound on the
      // time to final is asserted below; this only keeps a hang from running forever).
      const finalAt = await watchFinals(s.slack, threads, PARAGRAPHS_40K, 600_000 * SCALE);
      const pending = threads.flatMap((t) => {
        const why = finalAt.has(t.channel) ? undefined : notFinal(s!.slack, t, PARAGRAPHS_40K);
        return why ? [`${t.channel}: ${why}`] : [];
      });
      expect(pending).toEqual([]);
      await s.surface.idle();

      // Time to final of each answer: from its model's end to its final state on Slack.
      const toFinal = threads
        .map((t) => finalAt.get(t.channel)! - doneAt.get(t.conversation)!)
        .sort((a, b) => a - b);
      // Tier 3 lets one edit through every 1.2 s: the bound is one final edit per message shown.
      const shown = threads.reduce((n, t) => n + s!.slack.messagesIn(t.channel, t.ts).length, 0);
      const bound = (shown * TIER_3.perMs) / TIER_3.max + MARGIN_MS;
      expect(toFinal.at(-1)).toBeLessThan(bound);
      // Finals go by turn: half the answers are final in half that time, not all at the very end.
      expect(toFinal[ANSWERS / 2 - 1]).toBeLessThan(bound / 2);
      // People read the oldest answer first (issue 58 item 2): it is complete within seconds of its
      // last token, and the answers complete in the order they arrived.
      const byArrival = [...threads].sort(
        (a, b) => arrivedAt.get(a.conversation)! - arrivedAt.get(b.conversation)!,
      );
      const oldest = byArrival[0]!;
      // Within 10 Slack seconds on a machine that keeps up; on a starved one (two busy loops on both
      // cores) everything slows alike, so the bound is also a share of the last answer's wait: answers
      // served in no order had the oldest final at a third of it or later (38.5 of 114 s).
      const oldestToFinal = finalAt.get(oldest.channel)! - doneAt.get(oldest.conversation)!;
      expect(oldestToFinal).toBeLessThan(Math.max(FIRST_FINAL_MS, toFinal.at(-1)! * 0.15));
      // Two answers whose models ended together may land a moment apart either way; what a reader
      // sees is the order within a Slack second. An answer whose model ended before the older one's
      // started its finals first and may land first (a CI run: answer 5's model ended 80 ms before
      // answer 4's, its final 185 ms before 4's).
      const outOfOrder = finalsOutOfOrder(threads, arrivedAt, finalAt, SAME_MOMENT_MS, doneAt);
      // On failure, each answer's arrival, model end and final (ms from the first arrival) say why.
      const t0 = Math.min(...arrivedAt.values());
      const timeline = byArrival
        .map((t, i) => {
          const at = (time: number | undefined) => (time === undefined ? '-' : time - t0);
          return `${i + 1}: arrived ${at(arrivedAt.get(t.conversation))} done ${at(doneAt.get(t.conversation))} final ${at(finalAt.get(t.channel))}`;
        })
        .join('; ');
      expect(outOfOrder, timeline).toEqual([]);

      const updates = s.slack.callsTo('chat.update');
      const refused = updates.filter((c) => c.status === 429).length;
      expect(refused / updates.length).toBeLessThan(MAX_REFUSED_SHARE);
      expect(s.slack.violations).toEqual([]);
      // Still final once every write settled: nothing older landed afterwards.
      expect(threads.flatMap((t) => notFinal(s!.slack, t, PARAGRAPHS_40K) ?? [])).toEqual([]);
    },
    240_000,
  );
});
