/**
 * Issue 58 item 3: two Scout instances on one Redis answer one Slack workspace, against a fake Slack
 * that enforces ONE workspace limit for both (the fake counts per token and method, and both
 * instances use the same bot token): chat.update and chat.delete Tier 3, and with native streaming
 * chat.startStream / chat.stopStream Tier 2 and chat.appendStream Tier 4, all on the cluster's shrunk
 * time base. Each instance alone keeps to the whole limit, so together they went over it and Slack
 * refused; sharing the budget through Redis, Slack refuses nothing and every answer ends final.
 * Skipped without REDIS_URL.
 */
import { describe, expect, it } from 'vitest';
import {
  longAnswerModel,
  mentionThread,
  notFinal,
  PARAGRAPHS_40K,
  watchFinals,
} from '../helpers/concurrent-answers.js';
import type { MethodLimit } from '../helpers/fake-slack-api.js';
import { CLUSTER_SCALE, useCluster } from './scale-kit.js';

const per = (max: number): MethodLimit => ({ max, perMs: 60_000 * CLUSTER_SCALE });
/** Slack's tiers per workspace and method (shared/PLATFORMS.md), on the cluster's time base. */
const TIERS: Record<string, MethodLimit> = {
  'chat.update': per(50),
  'chat.delete': per(50),
  'chat.startStream': per(20),
  'chat.stopStream': per(20),
  'chat.appendStream': per(100),
};
const ANSWERS = 16;
/** Only a bound on a hang: the test asserts that every answer ends final, not how fast. */
const FINAL_TIMEOUT_MS = 90_000;

describe.skipIf(!process.env.REDIS_URL)('scale-out: two instances pace one Slack workspace together', () => {
  const c = useCluster({ slack: { methodLimits: TIERS } });

  it.each<[string, boolean]>([
    ['post + chat.update', false],
    ['native streaming', true],
  ])(
    '%s: 16 long answers, half on each instance: Slack refuses no call, every answer ends final',
    async (_mode, nativeStreaming) => {
      const env = { DEFAULT_MODE: 'agent', LLM_TIMEOUT_MS: '30000' };
      const [a, b] = await Promise.all([
        c.startInstance('A', { env, nativeStreaming }),
        c.startInstance('B', { env, nativeStreaming }),
      ]);
      c.llm.fallback = longAnswerModel({ paragraphs: PARAGRAPHS_40K, pieces: 100, chunkDelayMs: 10 });
      const threads = Array.from({ length: ANSWERS }, (_, i) => mentionThread(i));
      const acks = await Promise.all(threads.map((t, i) => (i % 2 === 0 ? a : b).post(t.envelope)));
      expect(acks.map((r) => r.status)).toEqual(threads.map(() => 200));

      const finalAt = await watchFinals(c.slack, threads, PARAGRAPHS_40K, FINAL_TIMEOUT_MS);
      const pending = threads.flatMap((t) => {
        const why = finalAt.has(t.channel) ? undefined : notFinal(c.slack, t, PARAGRAPHS_40K);
        return why ? [`${t.channel}: ${why}`] : [];
      });
      expect(pending).toEqual([]);
      await Promise.all([a.surface.idle(), b.surface.idle()]);

      const paced = Object.keys(TIERS).flatMap((method) => c.slack.callsTo(method));
      // Both instances wrote (the limit was shared, not one instance doing all the work).
      expect(c.slack.callsTo('chat.update').length).toBeGreaterThan(50);
      const refused = paced.filter((call) => call.status === 429).map((call) => call.method);
      expect(refused).toEqual([]);
      expect(threads.flatMap((t) => notFinal(c.slack, t, PARAGRAPHS_40K) ?? [])).toEqual([]);
    },
    180_000,
  );
});
