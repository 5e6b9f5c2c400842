/** Replays every recorded provider stream through the real SDKs and checks what comes out. */
import { expect, it } from 'vitest';
import { startFakeAnthropic } from '../helpers/fake-anthropic-server.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { describeWithShared, listChunkFixtures, loadChunkFixture } from '../helpers/fixtures.js';
import { clientFor, useFakeServer } from './client-helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: fixture chunks are untyped JSON
type Chunk = any;

/** What the OpenAI-style fixture says, computed independently of the code under test. */
function expectedOpenAI(chunks: Chunk[]) {
  let text = '';
  let reasoning = '';
  let finish: string | undefined;
  let usage: Chunk;
  const args = new Map<number, { id?: string; name?: string; args: string }>();
  for (const c of chunks) {
    if (c.usage) usage = c.usage;
    for (const choice of c.choices ?? []) {
      text += choice.delta?.content ?? '';
      reasoning += choice.delta?.reasoning_content ?? '';
      if (choice.finish_reason) finish = choice.finish_reason;
      for (const tc of choice.delta?.tool_calls ?? []) {
        const entry = args.get(tc.index) ?? { args: '' };
        entry.id ??= tc.id;
        entry.name ??= tc.function?.name;
        entry.args += tc.function?.arguments ?? '';
        args.set(tc.index, entry);
      }
    }
  }
  return { text, reasoning, finish, usage, calls: [...args.values()], model: chunks[0].model as string };
}

describeWithShared('recorded provider streams', () => {
  const openai = useFakeServer(startFakeOpenAI);
  const anthropic = useFakeServer(startFakeAnthropic);

  const fixtures = listChunkFixtures();
  it('finds the shared fixtures', () => {
    expect(fixtures).toEqual(expect.arrayContaining(['openai-text', 'deepseek-reasoning', 'anthropic-text']));
  });

  for (const name of fixtures.filter((f) => !f.startsWith('anthropic'))) {
    it(`replays ${name} through the openai SDK`, async () => {
      const chunks = loadChunkFixture(name) as Chunk[];
      const expected = expectedOpenAI(chunks);
      openai.enqueue(chunks);
      const provider = name.startsWith('deepseek') ? 'deepseek' : 'openai';
      const client = clientFor(
        provider,
        provider === 'deepseek' ? 'deepseek-reasoner' : 'gpt-4.1-mini',
        openai.baseUrl,
      );
      const response = await client.complete({ messages: [{ role: 'user', content: 'hi' }] });

      expect(response.text).toBe(expected.text);
      expect(response.reasoning).toBe(expected.reasoning);
      expect(response.model).toBe(expected.model);
      expect(response.usage.inputTokens).toBe(expected.usage.prompt_tokens);
      expect(response.usage.outputTokens).toBe(expected.usage.completion_tokens);
      expect(response.usage.reasoningTokens).toBe(
        expected.usage.completion_tokens_details?.reasoning_tokens ?? 0,
      );
      expect(response.finishReason).toBe(expected.finish);
      expect(response.latencyMs).toBeGreaterThanOrEqual(0);
      expect(response.toolCalls).toEqual(
        expected.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.args || '{}' })),
      );
      // Every tool call's arguments are JSON the agent can parse.
      for (const call of response.toolCalls) expect(() => JSON.parse(call.arguments)).not.toThrow();
      // The request asked for usage in the stream.
      expect(openai.requests.at(-1)?.body.stream_options).toEqual({ include_usage: true });
    });
  }

  it('replays deepseek-tool-call into one weather call after the reasoning', async () => {
    openai.enqueue(loadChunkFixture('deepseek-tool-call'));
    const client = clientFor('deepseek', 'deepseek-reasoner', openai.baseUrl);
    const response = await client.complete({ messages: [{ role: 'user', content: 'weather?' }] });
    expect(response.finishReason).toBe('tool_calls');
    expect(response.toolCalls).toHaveLength(1);
    expect(response.toolCalls[0]?.name).toBe('weather');
    expect(JSON.parse(response.toolCalls[0]!.arguments)).toEqual({ location: 'San Francisco' });
    expect(response.reasoning.length).toBeGreaterThan(20);
    expect(response.usage).toEqual({
      inputTokens: 339,
      outputTokens: 83,
      reasoningTokens: 39,
      cachedInputTokens: 320,
    });
  });

  it('replays anthropic-text through the Anthropic SDK', async () => {
    anthropic.enqueue(loadChunkFixture('anthropic-text'));
    const client = clientFor('anthropic', 'claude-test', anthropic.baseUrl, {}, { temperature: 0.5 });
    const parts: string[] = [];
    for await (const part of client.stream({ messages: [{ role: 'user', content: 'How are you?' }] }))
      parts.push(part.type);
    expect(parts.at(-1)).toBe('finish');
    anthropic.enqueue(loadChunkFixture('anthropic-text'));
    const response = await client.complete({ messages: [{ role: 'user', content: 'How are you?' }] });
    expect(response.text).toBe(
      "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
    );
    expect(response.finishReason).toBe('stop');
    expect(response.model).toBe('claude-sonnet-4-5-20250929');
    // message_delta carries the cumulative usage: the latest wins.
    expect(response.usage).toEqual({ inputTokens: 12, outputTokens: 30, reasoningTokens: 0 });
  });

  it('replays anthropic-tool-no-args: "" input becomes {}', async () => {
    anthropic.enqueue(loadChunkFixture('anthropic-tool-no-args'));
    const client = clientFor('anthropic', 'claude-test', anthropic.baseUrl, {}, { temperature: 0.5 });
    const response = await client.complete({ messages: [{ role: 'user', content: 'update the issues' }] });
    expect(response.text).toBe("I'll update the issue list for you.");
    expect(response.toolCalls).toEqual([
      { id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', name: 'updateIssueList', arguments: '{}' },
    ]);
    expect(response.finishReason).toBe('tool_calls');
    expect(response.usage).toEqual({ inputTokens: 565, outputTokens: 48, reasoningTokens: 0 });
  });
});
