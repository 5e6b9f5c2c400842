/**
 * Reading a long page on is progress, not a loop: fetch_url's header and the context window's
 * "shortened" note tell the model to call it again with `part=2, 3, …` on a page it already read, so
 * those rounds bring no new URL but text not read before. A model that asks for the same part again,
 * or whose round brings only known sources and text already read, is still stopped as a loop.
 * Real tools (web_search on the fake search API, fetch_url on a loopback page, the real reader) and
 * the fake tool model, as an agent turn runs them.
 */
import { describe, expect, it } from 'vitest';
import { createAgentExecutor } from '../../src/modes/agent/run-agent.js';
import type { AgentTrace } from '../../src/modes/turn/agent-trace.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { stepsOf } from './make-turn-context.js';
import { historyParagraphs, LONG_HISTORY, useLoopbackPages } from './harbour-pages.js';
import { agentLimits, useModeFakes } from './mode-fakes.js';
import { realToolsTurn } from './real-tools-turn.js';

const fakes = useModeFakes();

/** Short enough to come whole, whatever the focus. */
const SHORT_ARTICLE = `<!doctype html><html><head><title>The ferry | Harbour Courier</title></head><body>
<article><h1>The ferry</h1>${historyParagraphs(3)}</article></body></html>`;

const pages = useLoopbackPages({ '/long': LONG_HISTORY, '/short': SHORT_ARTICLE });

const read = (url: string, args: { part?: number; focus?: string } = {}, id?: string) => ({
  name: 'fetch_url',
  arguments: { url, ...args },
  ...(id ? { id } : {}),
});

/** Runs one agent turn whose question names `path` (so fetch_url may open it). */
async function runTurn(path: string) {
  pages.hits.length = 0;
  const { llm, turn } = realToolsTurn(fakes, `What does ${pages.base}${path} say about the crossing?`);
  const result = await createAgentExecutor({
    function_call_llm: llm,
    ...agentLimits({ maxExecutionMs: 60_000 }),
  }).run(turn.ctx);
  const trace = result.trace as AgentTrace;
  /** What the fetch_url call for `part` gave the model, as the trace records it. */
  const part = (n: number) =>
    trace.steps.find((s) => s.action?.tool === 'fetch_url' && s.action.args?.['part'] === n)?.observation ??
    '';
  return { result, trace, part, warnings: stepsOf(turn.view, 'warning') };
}

describe('agent mode reading a long page on', () => {
  it('reads part 1, then 2, then 3 in later rounds, and answers with no loop notice', async () => {
    fakes.llm.enqueue(
      toolCallReply([read(`${pages.base}/long`, { part: 1 })]),
      toolCallReply([read(`${pages.base}/long`, { part: 2 })]),
      toolCallReply([read(`${pages.base}/long`, { part: 3 })]),
      textReply('I have read the whole page.'),
      textReply('The history, read whole [1].'),
    );
    const { result, trace, part, warnings } = await runTurn('/long');

    for (const n of [1, 2, 3]) expect(part(n)).toContain(`Part ${n} of 3.`);
    expect(part(3)).toContain('Paragraph 239 of the history');
    expect(pages.hits.filter((h) => h === '/long')).toHaveLength(3);
    expect(warnings).toHaveLength(0);
    expect(trace.finishReason).toBe('answered');
    // The answer model reads the last part too.
    const answerPrompt = JSON.stringify(fakes.llm.requests.at(-1)?.body.messages);
    expect(answerPrompt).toContain('Paragraph 239 of the history');
    expect(result.answer).toContain('The history, read whole');
  }, 60_000);

  it('still stops a model that asks for the same part twice', async () => {
    fakes.llm.enqueue(
      toolCallReply([read(`${pages.base}/long`, { part: 1 })]),
      toolCallReply([read(`${pages.base}/long`, { part: 2 })]),
      toolCallReply([read(`${pages.base}/long`, { part: 2 })]),
      textReply('From parts 1 and 2 [1].'),
    );
    const { result, trace, warnings } = await runTurn('/long');

    expect(pages.hits.filter((h) => h === '/long')).toHaveLength(2);
    expect(trace.finishReason).toBe('loop');
    expect(warnings[0]?.title).toContain('rephrasing');
    expect(result.answer).toContain('From parts 1 and 2');
  }, 60_000);

  it('still stops a round that brings only known sources and text already read', async () => {
    const short = `${pages.base}/short`;
    fakes.search.script('harbour ferry', [{ title: 'The ferry', url: short, snippet: 'The ferry…' }]);
    fakes.search.script('harbour ferry timetable', [
      { title: 'The ferry', url: short, snippet: 'The ferry…' },
    ]);
    fakes.llm.enqueue(
      toolCallReply([{ name: 'web_search', arguments: { query: 'harbour ferry' } }, read(short)]),
      // New calls (another query, a focus), old material: the same source, the same whole page.
      toolCallReply([
        { name: 'web_search', arguments: { query: 'harbour ferry timetable' } },
        read(short, { focus: 'the timetable' }),
      ]),
      textReply('The ferry [1].'),
    );
    const { trace, warnings } = await runTurn('/short');

    expect(pages.hits.filter((h) => h === '/short')).toHaveLength(2);
    expect(trace.finishReason).toBe('loop');
    expect(warnings[0]?.title).toContain('rephrasing');
  }, 60_000);
});
