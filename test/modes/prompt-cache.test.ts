/**
 * Prompt caching (issue 28 §3), through the whole core as a user's message drives it: an Anthropic
 * agent turn of three rounds (the real @anthropic-ai/sdk against the fake Anthropic server, which bills
 * each request by Anthropic's cache rules) carries cache_control on its stable prefix, and each round
 * reads the rounds before it from the cache; the footer counts and prices what was cached. For every
 * provider, what goes ahead of the new messages is byte-identical across the rounds of a turn and
 * across turns (the OpenAI-compatible fake records the bytes).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { estimateCost } from '../../src/llm/pricing.js';
import { formatStatsFooter } from '../../src/render/format-stats.js';
import { type CacheBill, createPromptCacheSim } from '../helpers/anthropic-prompt-cache.js';
import {
  anthropicTextReply,
  anthropicToolUseReply,
  type FakeAnthropic,
  startFakeAnthropic,
} from '../helpers/fake-anthropic-server.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import type { RecordedRequest } from '../helpers/scripted-sse-server.js';
import { RecordingSink, startTestScout, type TestScout, testMessage } from '../helpers/scout-harness.js';

type Json = Record<string, unknown>;
type Block = Json & { type: string };
interface Message {
  role: string;
  content: Block[] | string;
}

let h: TestScout | undefined;
let anthropic: FakeAnthropic | undefined;
// The prompts carry today's date (a day-long constant, see docs/performance.md): the clock is held at
// midday so two turns never straddle midnight. Only Date is faked, and it still advances.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(new Date('2026-03-04T12:00:00Z'));
});
afterEach(async () => {
  vi.useRealTimers();
  await h?.close();
  await anthropic?.close();
  h = undefined;
  anthropic = undefined;
});

const CACHE = { type: 'ephemeral' };
/** A realistic share of what a search round brings back (scenario 15: ~1,250 tokens with pages read). */
const LONG_SNIPPET = 'Tokio is an asynchronous runtime for Rust. '.repeat(20);

/** The request as a JSON string without its cache_control marks (they are not content). */
function withoutMarks(value: unknown): string {
  return JSON.stringify(value, (key, v) => (key === 'cache_control' ? undefined : v));
}

/** Where a request carries breakpoints: 'tools[i]', 'system[i]', 'messages[m][b]'. */
function breakpoints(body: Json): string[] {
  const found: string[] = [];
  ((body['tools'] as Json[] | undefined) ?? []).forEach((tool, i) => {
    if (tool['cache_control']) found.push(`tools[${i}]`);
  });
  const system = body['system'];
  if (Array.isArray(system))
    system.forEach((block: Json, i) => {
      if (block['cache_control']) found.push(`system[${i}]`);
    });
  (body['messages'] as Message[]).forEach((message, m) => {
    if (Array.isArray(message.content))
      message.content.forEach((block, b) => {
        if (block['cache_control']) found.push(`messages[${m}][${b}]`);
      });
  });
  return found;
}

/** The tool-phase requests (they offer tools) and the answer request (it does not). */
function split(requests: RecordedRequest[]): { rounds: Json[]; answers: Json[] } {
  const bodies = requests.map((r) => r.body as Json);
  return { rounds: bodies.filter((b) => b['tools']), answers: bodies.filter((b) => !b['tools']) };
}

/** Asserts that `later` repeats `earlier`'s tools, system and messages byte for byte, then goes on. */
function expectPrefix(
  earlier: Json,
  later: Json,
  messages: number = (earlier['messages'] as unknown[]).length,
) {
  expect(withoutMarks(later['tools'])).toBe(withoutMarks(earlier['tools']));
  expect(withoutMarks(later['system'])).toBe(withoutMarks(earlier['system']));
  const before = (earlier['messages'] as unknown[]).slice(0, messages);
  expect(withoutMarks((later['messages'] as unknown[]).slice(0, messages))).toBe(withoutMarks(before));
}

describe('Anthropic prompt caching in an agent turn', () => {
  it('marks the stable prefix of each of three rounds, and each round reads the ones before from the cache', async () => {
    anthropic = await startFakeAnthropic();
    const cache = createPromptCacheSim();
    const bills: CacheBill[] = [];
    let round = 0;
    anthropic.fallback = (body: Json) => {
      const bill = cache.bill(body);
      bills.push(bill);
      const usage = { ...bill, outputTokens: 20 };
      if (!body['tools']) return anthropicTextReply('Tokio is an async runtime for Rust [1].', { usage });
      round += 1;
      if (round === 3) return anthropicTextReply('Enough to answer.', { usage });
      return anthropicToolUseReply([{ name: 'web_search', input: { query: `tokio ${round}` } }], {
        usage,
        text: `Searching, round ${round}.`,
      });
    };
    h = await startTestScout({
      env: {
        ANTHROPIC_API_KEY: 'sk-ant-test-0123456789',
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
        AGENT_FUNCTION_CALL_MODEL: 'anthropic/claude-sonnet-4-6',
        DEFAULT_MODE: 'agent',
        AGENT_READ_RESULTS: '0',
      },
    });
    for (const query of ['tokio 1', 'tokio 2'])
      h.search.script(
        query,
        Array.from({ length: 5 }, (_, i) => ({
          title: `Tokio ${query} ${i}`,
          url: `https://tokio.rs/${query.replace(' ', '-')}/${i}`,
          snippet: LONG_SNIPPET,
        })),
      );
    const sink = new RecordingSink();
    await h.scout.handleMessage(testMessage('What is tokio? Search twice.'), sink);

    expect(sink.final!.error).toBeUndefined();
    expect(sink.final!.answer).toContain('Tokio is an async runtime');
    const { rounds, answers } = split(anthropic.requests);
    expect(rounds).toHaveLength(3);
    expect(answers).toHaveLength(1);
    const toolCount = (rounds[0]!['tools'] as unknown[]).length;
    const lastTool = `tools[${toolCount - 1}]`;

    // Round 1: tools, system, and the question (the end of this request, for round 2 to read).
    expect(breakpoints(rounds[0]!)).toEqual([lastTool, 'system[0]', 'messages[0][0]']);
    // Round 2: …, round 1's reply (text, tool_use: read back, looking back to where round 1 ended),
    // and round 1's tool result, the end.
    expect(breakpoints(rounds[1]!)).toEqual([lastTool, 'system[0]', 'messages[1][1]', 'messages[2][0]']);
    // Round 3: the same one message on; the question and round 1 are no longer marked.
    expect(breakpoints(rounds[2]!)).toEqual([lastTool, 'system[0]', 'messages[3][1]', 'messages[4][0]']);
    for (const body of rounds) expect((body['system'] as Block[])[0]!['cache_control']).toEqual(CACHE);
    // Each round sends the previous one's request unchanged, then its own messages.
    expectPrefix(rounds[0]!, rounds[1]!);
    expectPrefix(rounds[1]!, rounds[2]!);
    // The answer: its system prompt only. Its one message (question and observations) is never sent
    // again, so writing it to the cache at 1.25× would buy nothing.
    expect(breakpoints(answers[0]!)).toEqual(['system[0]']);

    // What the fake billed: round 1 writes its whole prompt; rounds 2 and 3 read all that came before.
    const [first, second, third] = bills;
    expect(first!.cacheReadTokens).toBe(0);
    expect(first!.cacheWriteTokens).toBe(first!.totalTokens);
    expect(second!.cacheReadTokens).toBe(first!.totalTokens);
    expect(third!.cacheReadTokens).toBe(second!.totalTokens);
    expect(third!.inputTokens).toBe(0);

    // The footer counts those reads for the tool model, and prices them as Anthropic bills them.
    const stats = sink.final!.stats!;
    const tool = stats.models.find((m) => m.role === 'function_call')!;
    const toolBills = bills.slice(0, 3);
    const sum = (key: keyof CacheBill) => toolBills.reduce((n, b) => n + b[key], 0);
    expect(tool).toMatchObject({
      inputTokens: sum('totalTokens'),
      cachedInputTokens: sum('cacheReadTokens'),
      cacheWriteTokens: sum('cacheWriteTokens'),
      outputTokens: 60,
    });
    const answer = stats.models.find((m) => m.role === 'answer')!;
    const expected = [...toolBills, bills[3]!].reduce(
      (usd, b) =>
        usd + (b.inputTokens * 3 + b.cacheWriteTokens * 3.75 + b.cacheReadTokens * 0.3 + 20 * 15) / 1e6,
      0,
    );
    expect(stats.costUsd).toBeCloseTo(expected, 10);
    expect(estimateCost(tool.label, tool)! + estimateCost(answer.label, answer)!).toBeCloseTo(expected, 10);
    expect(formatStatsFooter(stats, 'en')).toContain(
      `${tool.inputTokens.toLocaleString('en-US')} (${tool.cachedInputTokens!.toLocaleString('en-US')} cached)→60 tok`,
    );
  });

  it('a follow-up turn reads the first turn’s system, tools and question from the cache', async () => {
    anthropic = await startFakeAnthropic();
    const cache = createPromptCacheSim();
    let toolCalls = 0;
    anthropic.fallback = (body: Json) => {
      const usage = { ...cache.bill(body), outputTokens: 5 };
      if (!body['tools']) return anthropicTextReply('An answer.', { usage });
      const last = (body['messages'] as Message[]).at(-1)!.content as Block[];
      // One search per turn: after a tool result, the model is done.
      if (last.some((b) => b.type === 'tool_result')) return anthropicTextReply('Done.', { usage });
      toolCalls += 1;
      return anthropicToolUseReply([{ name: 'web_search', input: { query: `q${toolCalls}` } }], { usage });
    };
    h = await startTestScout({
      env: {
        ANTHROPIC_API_KEY: 'sk-ant-test-0123456789',
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
        AGENT_FUNCTION_CALL_MODEL: 'anthropic/claude-sonnet-4-6',
        DEFAULT_MODE: 'agent',
        AGENT_READ_RESULTS: '0',
      },
    });
    await h.scout.handleMessage(
      testMessage(`First question. ${LONG_SNIPPET.repeat(4)}`),
      new RecordingSink(),
    );
    const firstTurn = anthropic.requests.length;
    await h.scout.handleMessage(testMessage('And a follow-up?'), new RecordingSink());

    const turn1 = split(anthropic.requests.slice(0, firstTurn)).rounds;
    const turn2 = split(anthropic.requests.slice(firstTurn)).rounds;
    // Turn 2 begins with turn 1's first request (tools, system, first question), byte for byte…
    expectPrefix(turn1[0]!, turn2[0]!);
    // …and marks the end of the history (turn 1's answer), from where the cache finds that request.
    expect(breakpoints(turn2[0]!)).toContain('messages[1][0]');
    const turn2First = cache.bills[firstTurn]!;
    expect(turn2First.cacheReadTokens).toBeGreaterThanOrEqual(cache.bills[0]!.totalTokens);
  });
});

describe('a byte-stable prefix for every provider', () => {
  it('agent mode: rounds of a turn and turns in a row repeat system, tools and earlier messages unchanged', async () => {
    h = await startTestScout({ env: { DEFAULT_MODE: 'agent', AGENT_READ_RESULTS: '0' } });
    let searches = 0;
    h.llm.fallback = (body: Json) => {
      if (!body['tools']) return textReply('An answer [1].');
      const tools = (body['messages'] as Message[]).filter((m) => m.role === 'tool').length;
      // Two searches per turn, then the model stops.
      if (tools >= 2 && (body['messages'] as Message[]).at(-1)!.role === 'tool') return textReply('Enough.');
      searches += 1;
      return toolCallReply([{ name: 'web_search', arguments: { query: `search ${searches}` } }]);
    };
    await h.scout.handleMessage(testMessage('First question?'), new RecordingSink());
    const firstTurn = h.llm.requests.length;
    await h.scout.handleMessage(testMessage('Second question?'), new RecordingSink());

    const turn1 = split(h.llm.requests.slice(0, firstTurn));
    const turn2 = split(h.llm.requests.slice(firstTurn));
    expect(turn1.rounds).toHaveLength(3);
    expect(turn2.rounds.length).toBeGreaterThanOrEqual(2);
    // Within a turn: each round's request starts with the whole previous request.
    for (const turn of [turn1, turn2])
      for (let i = 1; i < turn.rounds.length; i++) expectPrefix(turn.rounds[i - 1]!, turn.rounds[i]!);
    // Across turns: the second turn starts with the first turn's first request (system + question).
    expectPrefix(turn1.rounds[0]!, turn2.rounds[0]!);
    // The answer model's system prompt is the same in both turns.
    const system = (body: Json) => withoutMarks((body['messages'] as Message[])[0]);
    expect(system(turn2.answers[0]!)).toBe(system(turn1.answers[0]!));
  });

  it('chat mode: the second turn starts with the first turn’s request', async () => {
    h = await startTestScout({ env: { DEFAULT_MODE: 'chat' } });
    h.llm.fallback = () => textReply('Hello.');
    await h.scout.handleMessage(testMessage('Hi?'), new RecordingSink());
    await h.scout.handleMessage(testMessage('Again?'), new RecordingSink());
    const [first, second] = h.llm.requests.map((r) => r.body as Json);
    expectPrefix(first!, second!);
  });
});
