/**
 * Reasoning on every provider that has it: Anthropic extended thinking switched on per model, its
 * thinking and redacted_thinking blocks echoed back with tool use, Gemini's thought signature
 * echoed on the message, and default model names the SDK does not call deprecated.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS } from '../../src/llm/default-models.js';
import { parseModelSpec, sentMaxTokens } from '../../src/llm/model-config.js';
import { estimateCost } from '../../src/llm/pricing.js';
import type { ChatMessage } from '../../src/llm/types.js';
import {
  anthropicTextReply,
  anthropicToolUseReply,
  startFakeAnthropic,
} from '../helpers/fake-anthropic-server.js';
import { describeWithShared, loadReplay } from '../helpers/fixtures.js';
import { type Replay, type ReplayServer, startReplayServer } from '../helpers/replay-server.js';
import { RecordingSink, startTestScout, type TestScout, testMessage } from '../helpers/scout-harness.js';
import { clientFor, useFakeServer } from './client-helpers.js';

describe('Anthropic extended thinking', () => {
  const fake = useFakeServer(startFakeAnthropic);

  it('thinking=<budget> sends the thinking block, its max_tokens, and no temperature', async () => {
    fake.enqueue(anthropicTextReply('Hi', { thinking: 'Let me think.' }));
    const client = clientFor(
      'anthropic',
      'claude-sonnet-5-5',
      fake.baseUrl,
      {},
      { thinking: 6000, maxTokens: 10_000 },
    );
    const response = await client.complete({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'web_search', description: 'search', parameters: { type: 'object' } }],
      toolChoice: 'required',
    });
    expect(response.reasoning).toBe('Let me think.');
    const body = fake.requests[0]!.body;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 6000 });
    expect(body.max_tokens).toBe(10_000);
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
    // Forced tool use is refused with thinking on: the model may still call, it is not forced.
    expect(body.tool_choice).toEqual({ type: 'auto' });
  });

  it('without thinking= no thinking is asked for', async () => {
    fake.enqueue(anthropicTextReply('Hi'));
    await clientFor('anthropic', 'claude-sonnet-5-5', fake.baseUrl).complete({
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(fake.requests[0]!.body).not.toHaveProperty('thinking');
    expect(fake.requests[0]!.body.temperature).toBe(0.7);
  });

  it('is checked: at least 1024, below max_tokens, and only where a provider has it', () => {
    expect(
      parseModelSpec('{"provider":"anthropic","model":"claude-sonnet-5-5","thinking":4000}', 'X'),
    ).toMatchObject({
      thinking: 4000,
    });
    // Without max_tokens, a big budget still leaves room for the answer after it.
    expect(sentMaxTokens(parseModelSpec('{"provider":"anthropic","model":"m","thinking":6000}', 'X'))).toBe(
      6000 + 4096,
    );
    expect(() => parseModelSpec('{"provider":"anthropic","model":"m","thinking":100}', 'X')).toThrow(
      /at least 1024/,
    );
    expect(() =>
      parseModelSpec('{"provider":"anthropic","model":"m","thinking":4000,"max_tokens":2000}', 'X'),
    ).toThrow(/max_tokens \(2000\) must be larger than the thinking budget/);
    expect(() =>
      parseModelSpec('{"provider":"deepseek","model":"deepseek-chat","thinking":4000}', 'X'),
    ).toThrow(/deepseek-reasoner/);
  });
});

describe('an agent turn with Anthropic thinking and tool use', () => {
  let h: TestScout | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('echoes the signed thinking block and the redacted block, in order, before the tool_use', async () => {
    const anthropic = await startFakeAnthropic();
    try {
      h = await startTestScout({
        env: {
          DEFAULT_MODE: 'agent',
          ANTHROPIC_API_KEY: 'sk-ant-test-0123456789',
          ANTHROPIC_BASE_URL: anthropic.baseUrl,
          AGENT_FUNCTION_CALL_MODEL: '{"provider":"anthropic","model":"claude-sonnet-5-5","thinking":2048}',
        },
      });
      const first = anthropicToolUseReply([{ name: 'web_search', input: { query: 'tokio' } }], {
        thinking: 'I should search.',
      });
      // An encrypted block after the thinking one: nothing to show, everything to send back.
      const afterThinking = first.chunks.findIndex(
        (c) => (c as { type: string }).type === 'content_block_stop',
      );
      first.chunks.splice(
        afterThinking + 1,
        0,
        {
          type: 'content_block_start',
          index: 9,
          content_block: { type: 'redacted_thinking', data: 'EncRypted==' },
        },
        { type: 'content_block_stop', index: 9 },
      );
      anthropic.enqueue(first);
      anthropic.fallback = anthropicTextReply('Tokio is an async runtime.');
      const sink = new RecordingSink();
      await h.scout.handleMessage(testMessage('what is tokio?'), sink);

      expect(sink.final!.error).toBeUndefined();
      expect(sink.final!.answer).toContain('Tokio is an async runtime.');
      const second = anthropic.requests[1]!.body as { thinking: unknown; messages: ChatMessageWire[] };
      expect(second.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
      const assistant = second.messages.find((m) => m.role === 'assistant')!;
      expect(assistant.content.map((b) => b.type)).toEqual(['thinking', 'redacted_thinking', 'tool_use']);
      expect(assistant.content[0]).toMatchObject({ thinking: 'I should search.', signature: 'sig-fake' });
      expect(assistant.content[1]).toEqual({ type: 'redacted_thinking', data: 'EncRypted==' });
    } finally {
      await anthropic.close();
    }
  });
});

interface ChatMessageWire {
  role: string;
  content: Array<{ type: string; [key: string]: unknown }>;
}

describeWithShared(
  'Gemini thought signature on the message (recorded)',
  () => {
    let server: ReplayServer | undefined;
    afterEach(async () => {
      await server?.close();
    });

    it('is echoed back on the assistant message of the next request', async () => {
      const replay = loadReplay<Replay>('gemini-empty-id-signature');
      server = await startReplayServer([...replay.tool, ...(replay.answer ?? [])]);
      const client = clientFor('gemini', replay.model, server.origin);
      const first = await client.complete({ messages: [{ role: 'user', content: 'hi' }] });
      expect(first.toolCalls[0]?.name).toBe('current_context');
      const history: ChatMessage[] = [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: first.text,
          toolCalls: first.toolCalls,
          ...(first.providerMetadata ? { providerMetadata: first.providerMetadata } : {}),
        },
        { role: 'tool', toolCallId: first.toolCalls[0]!.id, name: 'current_context', content: '2026-11-23' },
      ];
      await client.complete({ messages: history });
      const sent = server.requests[1].messages[1];
      expect(sent.extra_content.google.thought_signature).toMatch(/^AVSoXO4A/);
    });
  },
  'replays',
);

describe('default models and prices', () => {
  it('no default model is in the Anthropic SDK’s deprecation list', () => {
    const require = createRequire(import.meta.url);
    const sdkDir = path.dirname(require.resolve('@anthropic-ai/sdk'));
    const source = readFileSync(path.join(sdkDir, 'resources/messages/messages.js'), 'utf8');
    const list = /DEPRECATED_MODELS\s*=\s*\{([^}]*)\}/.exec(source)?.[1];
    expect(list, 'the SDK no longer has a DEPRECATED_MODELS table; update this test').toBeDefined();
    const deprecated = [...list!.matchAll(/'([^']+)'\s*:/g)].map((m) => m[1]);
    expect(deprecated.length).toBeGreaterThan(0);
    expect(Object.values(DEFAULT_MODELS).filter((name) => deprecated.includes(name))).toEqual([]);
  });

  it('prices cache reads and writes apart from plain input, reasoning as output', () => {
    const usage = {
      inputTokens: 1_000_000,
      cachedInputTokens: 600_000,
      cacheWriteTokens: 100_000,
      outputTokens: 100_000,
      reasoningTokens: 80_000,
    };
    // 300k plain at $2, 600k cached at $0.10, 100k written at $2.50, 100k out at $10.
    expect(estimateCost('anthropic/claude-sonnet-5-5', usage)).toBeCloseTo(0.6 + 0.06 + 0.25 + 1);
  });
});
