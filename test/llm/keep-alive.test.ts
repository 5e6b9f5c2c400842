/**
 * One connection per provider host: Scout's model and search calls go over pooled keep-alive
 * connections, reused across the rounds of an agent turn and across turns. The loopback fakes count
 * the TCP connections they accept; the turns run through a whole Scout (real driver or SDK, real
 * search provider, real agent loop) as a user's message does.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TurnView } from '../../src/render/view.js';
import {
  anthropicTextReply,
  anthropicToolUseReply,
  type FakeAnthropic,
  startFakeAnthropic,
} from '../helpers/fake-anthropic-server.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { RecordingSink, startTestScout, type TestScout, testMessage } from '../helpers/scout-harness.js';

let h: TestScout | undefined;
let anthropic: FakeAnthropic | undefined;
afterEach(async () => {
  await h?.close();
  await anthropic?.close();
  h = undefined;
  anthropic = undefined;
});

const CONVERSATION = 'test:C1:keep-alive';

async function turn(text: string, sink = new RecordingSink()): Promise<TurnView> {
  await h!.scout.handleMessage(testMessage(text, { conversationId: CONVERSATION }), sink);
  return sink.final!;
}

/**
 * Two search rounds, the round that ends the tool phase, then the answer model's streamed answer:
 * four model calls and two searches.
 */
function scriptOpenAITurn(answer: string): void {
  for (const query of ['first', 'second'])
    h!.llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: `${answer} ${query}` } }]));
  h!.llm.enqueue(textReply('I have what I need.'));
  h!.llm.enqueue(textReply(answer));
}

function scriptAnthropicTurn(answer: string): void {
  for (const query of ['first', 'second'])
    anthropic!.enqueue(
      anthropicToolUseReply([{ name: 'web_search', input: { query: `${answer} ${query}` } }]),
    );
  anthropic!.enqueue(anthropicTextReply('I have what I need.'));
  anthropic!.enqueue(anthropicTextReply(answer));
}

// No page reads: they would go to the fake results' (unreachable) hosts.
const AGENT = { DEFAULT_MODE: 'agent', AGENT_READ_RESULTS: '0' };

describe('keep-alive: one connection per provider host', () => {
  it('an agent turn of four model calls opens one model connection and one search connection; the next turn reuses them', async () => {
    h = await startTestScout({ env: AGENT });
    scriptOpenAITurn('Answer one');
    const first = await turn('what is new?');
    expect(first.error).toBeUndefined();
    expect(first.answer).toContain('Answer one');
    expect(h.llm.requests).toHaveLength(4);
    expect(h.search.requests).toHaveLength(2);
    expect(h.llm.connections).toBe(1);
    expect(h.search.connections).toBe(1);

    scriptOpenAITurn('Answer two');
    const second = await turn('and now?');
    expect(second.error).toBeUndefined();
    expect(second.answer).toContain('Answer two');
    expect(h.llm.requests).toHaveLength(8);
    expect(h.search.requests).toHaveLength(4);
    expect(h.llm.connections).toBe(1);
    expect(h.search.connections).toBe(1);
  });

  it('a Stop mid-stream ends the turn at once and costs only that connection; the next turns work on a new one, reused', async () => {
    h = await startTestScout({ noSearch: true });
    h.llm.enqueue(textReply('Before the stop.'));
    expect((await turn('hi')).answer).toContain('Before the stop.');
    expect(h.llm.connections).toBe(1);

    // 40 pieces, the rest held after the first: the stream goes on only once the turn has ended, so
    // a turn that waited for its stream would never end ("at once" as an event, not a time bound).
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let streamEnded = false;
    h.llm.enqueue({
      ...textReply('word '.repeat(40), { pieces: 40 }),
      holdAt: { index: 2, until: released },
      onEnd: () => {
        streamEnded = true;
      },
    });
    const sink = new RecordingSink();
    const stopped = turn('a long one', sink).finally(release);
    await vi.waitFor(() => expect(sink.updates.some((view) => view.answer.includes('word'))).toBe(true), {
      timeout: 10_000,
    });
    expect(h.scout.cancel(CONVERSATION)).toBe(true);
    const view = await stopped;
    expect(streamEnded).toBe(false);
    expect(view.cancelled).toBe(true);

    h.llm.enqueue(textReply('After the stop.'));
    expect((await turn('again')).answer).toContain('After the stop.');
    h.llm.enqueue(textReply('And again.'));
    expect((await turn('once more')).answer).toContain('And again.');
    expect(h.llm.requests).toHaveLength(4);
    // The stopped stream's connection was cut (the server stops generating); the pool opened one more.
    expect(h.llm.connections).toBe(2);
  });

  it('Anthropic (its SDK over fetch) also keeps one connection across the rounds and turns', async () => {
    anthropic = await startFakeAnthropic();
    h = await startTestScout({
      env: {
        ...AGENT,
        ANTHROPIC_API_KEY: 'sk-ant-test-0123456789',
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
        AGENT_FUNCTION_CALL_MODEL: 'anthropic/claude-fake',
      },
    });
    scriptAnthropicTurn('Answer one');
    expect((await turn('what is new?')).answer).toContain('Answer one');
    scriptAnthropicTurn('Answer two');
    expect((await turn('and now?')).answer).toContain('Answer two');
    expect(anthropic.requests).toHaveLength(8);
    expect(anthropic.connections).toBe(1);
    expect(h.search.connections).toBe(1);
    expect(h.llm.requests).toHaveLength(0);
  });
});
