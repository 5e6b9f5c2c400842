/**
 * Long conversations are compressed, not forgotten: driven through the core as the surfaces drive it,
 * against a loopback fake model whose summaries are checkable (the fake summariser keeps every
 * "CODE-123" token and "1234 EUR" amount of what it was sent, and nothing else of substance).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationRecord } from '../../src/store/conversation-store.js';
import { openAIErrorBody, type RecordedRequest, textReply } from '../helpers/fake-openai-server.js';
import { RecordingSink, type TestScout, startTestScout, testMessage } from '../helpers/scout-harness.js';

const MEMORY_PROMPT = 'You keep the memory of a long conversation';
const FIRST =
  'Hi! Our project is codenamed BLUEBIRD-42 and the budget is 17500 EUR. Please keep both in mind.';
/** A 4,000-token window with 500 tokens for the answer: about 1,500 tokens of room for history. */
const SMALL_WINDOW = { LLM_CONTEXT_WINDOW: '4000', DEFAULT_MAX_TOKENS: '500' };

type Body = { messages: { role: string; content: string }[] };
const isSummaryRequest = (body: Body) => String(body.messages[0]?.content).includes(MEMORY_PROMPT);
const summaryRequests = (h: TestScout) => h.llm.requests.filter((r) => isSummaryRequest(r.body));
const answerRequests = (h: TestScout) => h.llm.requests.filter((r) => !isSummaryRequest(r.body));
const userText = (request: RecordedRequest) =>
  (request.body as Body).messages.map((m) => `${m.role}: ${m.content}`).join('\n');

/** Keeps the facts of what it was sent, as a summary model told to keep specifics would. */
function fakeSummary(body: Body): string {
  const sent = body.messages[1]?.content ?? '';
  const facts = new Set([...sent.matchAll(/\b[A-Z]{3,}-\d+\b|\b\d+ EUR\b/g)].map((m) => m[0]));
  const turns = [...sent.matchAll(/Question (\d+):/g)].map((m) => m[1]);
  return `- Facts stated: ${[...facts].join(', ')}\n- Questions ${turns[0] ?? '?'} to ${turns.at(-1) ?? '?'} were about numbered topics.`;
}

/** An answer of about 100 tokens, so a fold comes every several turns. */
function fakeAnswer(body: Body): string {
  const question = body.messages.at(-1)?.content ?? '';
  return `About "${question.slice(0, 40)}": ${'this topic has several aspects worth a closer look, '.repeat(9)}`;
}

let h: TestScout | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function ask(scout: TestScout, text: string, conversationId = 'test:C1:T1') {
  const sink = new RecordingSink();
  await scout.scout.handleMessage(testMessage(text, { conversationId }), sink);
  return sink;
}

async function record(scout: TestScout, conversationId = 'test:C1:T1') {
  return (await scout.stores.conversations.get(conversationId)) as ConversationRecord | undefined;
}

describe('conversation memory', () => {
  it('a fact from the first message reaches the model at turn 40 through the summary, in few summarising calls', async () => {
    h = await startTestScout({ env: SMALL_WINDOW });
    h.llm.fallback = (body: Body) => textReply(isSummaryRequest(body) ? fakeSummary(body) : fakeAnswer(body));
    const sinks: RecordingSink[] = [await ask(h, FIRST)];
    for (let turn = 2; turn <= 40; turn++)
      sinks.push(await ask(h, `Question ${turn}: tell me about topic ${turn}.`));

    for (const sink of sinks) {
      expect(sink.final?.error).toBeUndefined();
      expect(sink.final?.answer).toContain('About "');
    }
    const calls = summaryRequests(h).length;
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(calls).toBeLessThanOrEqual(8);

    // What the answer model is sent at turn 40: the summary, marked, ahead of the kept turns; the
    // first message itself is long gone from the window.
    const last = answerRequests(h).at(-1)!;
    const messages = (last.body as Body).messages;
    expect(messages.at(-1)?.content).toBe('Question 40: tell me about topic 40.');
    const summary = messages.find((m) => m.content.includes('<conversation-summary'));
    expect(summary?.role).toBe('user');
    expect(messages.indexOf(summary!)).toBe(1); // right after the system prompt
    expect(summary?.content).toMatch(/Summary of the earlier part of this conversation/);
    expect(summary?.content).toContain('BLUEBIRD-42');
    expect(summary?.content).toContain('17500 EUR');
    expect(userText(last)).not.toContain('codenamed');
    expect(userText(last)).not.toContain('Question 2:');

    // Incremental: each fold reads the previous summary and only turns no fold read before.
    const folds = summaryRequests(h).map((r) => (r.body as Body).messages[1]!.content);
    expect(folds[0]).not.toContain('<previous-summary');
    for (const fold of folds.slice(1)) expect(fold).toContain('<previous-summary');
    for (let turn = 2; turn <= 40; turn++) {
      const reading = folds.filter((fold) => fold.includes(`Question ${turn}:`));
      expect(reading.length).toBeLessThanOrEqual(1);
    }
    expect(folds.filter((fold) => fold.includes('codenamed')).length).toBe(1);

    // The turn that folded shows a collapsed step; the summary is stored in place of the turns.
    const folding = sinks.filter((s) => s.final?.steps.some((step) => step.id === 'memory-summary'));
    expect(folding).toHaveLength(calls);
    const step = folding[0]!.final!.steps.find((s) => s.id === 'memory-summary')!;
    expect(step.title).toMatch(/^Summarised \d+ earlier messages$/);
    expect(step.collapsed).toBe(true);
    const stored = await record(h);
    expect(stored?.summary?.text).toContain('BLUEBIRD-42');
    expect(stored!.summary!.messages + stored!.messages.length).toBe(80);
    expect(stored?.messages[0]?.role).toBe('user');
    console.log(
      `conversation memory: 40 turns, ${calls} summarising calls, ${stored!.messages.length} messages kept`,
    );
  });

  it('sends the stored summary in agent and plan mode too', async () => {
    h = await startTestScout({ env: { ...SMALL_WINDOW, DEFAULT_MODE: 'agent' } });
    await h.stores.conversations.set('test:C1:T1', {
      channelId: 'test:C1',
      messages: [
        { role: 'user', content: 'And the deadline?' },
        { role: 'assistant', content: 'Friday.' },
      ],
      summary: { text: '- Project codename ORCA-7', messages: 12, tokens: 60, updatedAt: Date.now() },
      updatedAt: Date.now(),
    } satisfies ConversationRecord);
    h.llm.fallback = () => textReply('Noted.');
    const sink = await ask(h, 'What is the codename?');
    expect(sink.final?.error).toBeUndefined();
    const first = answerRequests(h)[0]!;
    expect(userText(first)).toMatch(
      /<conversation-summary messages="12">\n- Project codename ORCA-7\n<\/conversation-summary>/,
    );
    expect(summaryRequests(h)).toHaveLength(0);

    await h.scout.runCommand('mode', 'plan', { channelId: 'test:C1', userId: 'U1', locale: 'en' });
    // A mode switch clears the channel's histories, summaries included.
    expect(await record(h)).toBeUndefined();
  });

  it.each([
    ['an error', () => ({ status: 400, body: openAIErrorBody('bad request') })],
    ['an empty reply', () => textReply('')],
    ['a huge reply', () => textReply('word '.repeat(2_000))],
    [
      'a reply in another script',
      () => textReply('- 项目代号和预算已记录，用户询问了多个编号主题。'.repeat(3)),
    ],
  ])(
    'a summary that fails (%s) leaves the answer and the stored history as they were, with a notice',
    async (_name, reply) => {
      h = await startTestScout({ env: SMALL_WINDOW });
      h.llm.fallback = (body: Body) => (isSummaryRequest(body) ? reply() : textReply(fakeAnswer(body)));
      let failed: RecordingSink | undefined;
      await ask(h, FIRST);
      for (let turn = 2; turn <= 20 && !failed; turn++) {
        const sink = await ask(h, `Question ${turn}: tell me about topic ${turn}.`);
        if (summaryRequests(h).length > 0) failed = sink;
      }
      expect(failed).toBeDefined();
      expect(failed!.final?.error).toBeUndefined();
      expect(failed!.final?.answer).toContain('About "');
      const step = failed!.final!.steps.find((s) => s.id === 'memory-summary');
      expect(step?.title).toMatch(/Could not summarise the earlier messages/);
      expect(step?.collapsed).toBe(false);
      const stored = await record(h);
      expect(stored?.summary).toBeUndefined();
      expect(stored?.messages[0]?.content).toBe(FIRST); // nothing folded away
      // The answer went out with the newest turns that fit, and no summary.
      const last = answerRequests(h).at(-1)!;
      expect(userText(last)).not.toContain('conversation-summary');
      expect(userText(last)).not.toContain('codenamed');
    },
  );

  it('a summarising call that hangs is given up after its time limit; the answer still comes', async () => {
    h = await startTestScout({ env: { ...SMALL_WINDOW, LLM_TIMEOUT_MS: '1000', LLM_MAX_RETRIES: '0' } });
    h.llm.fallback = (body: Body) => (isSummaryRequest(body) ? { hang: true } : textReply(fakeAnswer(body)));
    let failed: RecordingSink | undefined;
    await ask(h, FIRST);
    for (let turn = 2; turn <= 20 && !failed; turn++) {
      const sink = await ask(h, `Question ${turn}: tell me about topic ${turn}.`);
      if (summaryRequests(h).length > 0) failed = sink;
    }
    expect(failed?.final?.error).toBeUndefined();
    expect(failed?.final?.answer).toContain('About "');
    expect(failed?.final?.steps.find((s) => s.id === 'memory-summary')?.title).toMatch(/Could not summarise/);
  });
});
