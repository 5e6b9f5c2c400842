/**
 * Token counts from real recorded streams (`../shared/replays`), each provider's convention turned
 * into ours: output includes reasoning, input includes cache reads and writes.
 */
import { afterEach, expect, it } from 'vitest';
import type { ProviderName, Usage } from '../../src/llm/types.js';
import { describeWithShared, loadReplay } from '../helpers/fixtures.js';
import { type Replay, type ReplayServer, startReplayServer } from '../helpers/replay-server.js';
import { clientFor } from './client-helpers.js';

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The usage of the recording's first call, through the real SDK. */
async function usageOf(name: string): Promise<Usage> {
  const replay = loadReplay<Replay>(name);
  server = await startReplayServer(replay.tool);
  const client = clientFor(replay.provider as ProviderName, replay.model, server.origin);
  const response = await client.complete({ messages: [{ role: 'user', content: replay.question ?? 'hi' }] });
  return response.usage;
}

describeWithShared(
  'recorded usage, per provider convention',
  () => {
    it('xAI: reasoning_tokens (196) are outside completion_tokens (26), so output is 222', async () => {
      expect(await usageOf('xai-reasoning-tool')).toMatchObject({
        inputTokens: 291,
        outputTokens: 222,
        reasoningTokens: 196,
        cachedInputTokens: 290,
      });
    });

    it('Gemini: total_tokens (109) holds 62 thinking tokens beyond prompt (35) + completion (12)', async () => {
      expect(await usageOf('gemini-empty-id-signature')).toMatchObject({
        inputTokens: 35,
        outputTokens: 74,
        reasoningTokens: 62,
      });
    });

    it('Z.ai: reasoning inside completion_tokens is not counted twice', async () => {
      const usage = await usageOf('zai-glm-thinking');
      expect(usage).toMatchObject({ inputTokens: 13, outputTokens: 564 });
      expect(usage.reasoningTokens).toBeLessThanOrEqual(564);
    });

    it('Anthropic: the final input count of message_delta (61) wins over message_start (43)', async () => {
      expect(await usageOf('anthropic-delta-input-tokens')).toMatchObject({
        inputTokens: 61,
        outputTokens: 2,
      });
    });

    it('Anthropic with compaction: every billed pass counts, cache reads inside input', async () => {
      expect(await usageOf('anthropic-cache-usage')).toMatchObject({
        inputTokens: 100 + 181 + 55096,
        cachedInputTokens: 55096,
        outputTokens: 83 + 8,
      });
    });
  },
  'replays',
);
