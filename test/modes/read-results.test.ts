/**
 * Agent mode reads the top results of a search (AGENT_READ_RESULTS): the search's snippets point at
 * pages on a loopback server, and what the models are sent shows the pages' passages, not only the
 * 200-character snippets, under the results' numbers; the answer cites them and its References carry
 * the site and date the page gave.
 */
import { describe, expect, it } from 'vitest';
import { say } from '../../src/i18n/say.js';
import type { AgentTrace } from '../../src/modes/turn/agent-trace.js';
import { agentOptionsFromContext, createAgentExecutor } from '../../src/modes/agent/run-agent.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { historyParagraphs, LONG_HISTORY, useLoopbackPages } from './harbour-pages.js';
import { useModeFakes } from './mode-fakes.js';
import { realToolsTurn } from './real-tools-turn.js';

const fakes = useModeFakes();

/** The fact the question needs sits deep in a long article, far past any snippet. */
const FACT = 'The Lindqvist span carries 41,200 vehicles a day, twice the figure planned in 1998.';
const ARTICLE = `<!doctype html><html><head><title>The bridge at forty | Harbour Courier</title>
<meta property="og:site_name" content="Harbour Courier">
<meta property="article:published_time" content="2026-03-14T08:00:00Z">
<script>fetch('/ran-script')</script></head><body>
<header><nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav></header>
<article><h1>The bridge at forty</h1>${historyParagraphs(60)}<p>${FACT}</p>${historyParagraphs(10)}</article>
<aside class="related"><h3>Most read</h3><ul><li><a href="/x">Cat stuck in tree</a></li></ul></aside>
<footer>© 2026 Harbour Courier. All rights reserved.</footer></body></html>`;

const pages = useLoopbackPages({ '/bridge': ARTICLE, '/long': LONG_HISTORY, '/slow': 'hang' });

/** The paragraph numbers a text holds, in its order. */
const paragraphsIn = (text: string) =>
  [...text.matchAll(/Paragraph (\d+) of the history/g)].map((m) => Number(m[1]));

async function runTurn(question: string, env: Record<string, string> = {}) {
  const { turn } = realToolsTurn(fakes, question, env);
  // The options come from the configuration, as Scout builds them (AGENT_READ_RESULTS included).
  const result = await createAgentExecutor({
    ...agentOptionsFromContext(turn.ctx),
    minResultChars: 100_000,
  }).run(turn.ctx);
  const requests = fakes.llm.requests.map(
    (r) => r.body.messages as Array<{ role: string; content: string; tool_call_id?: string }>,
  );
  return { result, requests, events: turn.events };
}

describe('agent mode reads the top search results', () => {
  it('sends the models the page passages under the result numbers, and the answer cites them', async () => {
    pages.hits.length = 0;
    fakes.search.script('lindqvist bridge traffic', [
      { title: 'The bridge at forty', url: `${pages.base}/bridge`, snippet: 'Forty years of the crossing…' },
      { title: 'Slow page', url: `${pages.base}/slow`, snippet: 'never loads' },
    ]);
    fakes.llm.enqueue(
      toolCallReply([{ name: 'web_search', arguments: { query: 'lindqvist bridge traffic' }, id: 's1' }]),
      textReply('Found the daily traffic figure.'),
      textReply('About 41,200 vehicles cross it each day [1].'),
    );
    const { result, requests, events } = await runTurn(
      'How many vehicles use the Lindqvist bridge per day?',
      {
        AGENT_READ_RESULTS: '2',
      },
    );

    expect(pages.hits).toContain('/bridge');
    expect(pages.hits).not.toContain('/ran-script');
    // The function-call model's next request: the search results, then the page's passages.
    const toolMessage = requests[1]?.find((m) => m.role === 'tool' && m.tool_call_id === 's1')?.content ?? '';
    expect(toolMessage).toContain('[1] The bridge at forty');
    expect(toolMessage).toContain('Source [1]');
    expect(toolMessage).toContain(FACT);
    expect(toolMessage).toMatch(/ · Harbour Courier( · by [^\n·]+)? · 2026-03-14\n/);
    expect(toolMessage).toMatch(/\[… \d+ paragraphs skipped …\]/);
    // Menus, related links and the footer never reach the model.
    expect(toolMessage).not.toContain('Cat stuck in tree');
    expect(toolMessage).not.toContain('All rights reserved');
    // The answer model reads the passage too, as a numbered source.
    const answerPrompt =
      requests
        .at(-1)
        ?.map((m) => m.content)
        .join('\n') ?? '';
    expect(answerPrompt).toContain(FACT);
    // The answer cites [1], and its References show the page's site and date.
    expect(result.answer).toContain(`[[1]](${pages.base}/bridge)`);
    expect(result.answer).toMatch(/1\. \[The bridge at forty\]\([^)]+\) — Harbour Courier, 2026-03-14/);
    // Each page read is a step the user sees; the page that never answered failed without holding the turn.
    const titles = events.flatMap((e) => ('title' in e && e.title !== undefined ? [say('en', e.title)] : []));
    expect(titles.some((t) => t.startsWith('Read: 127.0.0.1/bridge'))).toBe(true);
    expect(titles.some((t) => t.startsWith('Could not read: 127.0.0.1/slow'))).toBe(true);
  }, 30_000);

  it('AGENT_READ_RESULTS=0 leaves the model with the snippets only', async () => {
    pages.hits.length = 0;
    fakes.search.script('lindqvist bridge traffic', [
      { title: 'The bridge at forty', url: `${pages.base}/bridge`, snippet: 'Forty years of the crossing…' },
    ]);
    fakes.llm.enqueue(
      toolCallReply([{ name: 'web_search', arguments: { query: 'lindqvist bridge traffic' }, id: 's1' }]),
      textReply('Only a snippet.'),
      textReply('The snippet does not say [1].'),
    );
    const { requests } = await runTurn('How many vehicles use the Lindqvist bridge per day?', {
      AGENT_READ_RESULTS: '0',
    });
    expect(pages.hits).not.toContain('/bridge');
    const toolMessage = requests[1]?.find((m) => m.role === 'tool')?.content ?? '';
    expect(toolMessage).toContain('Forty years of the crossing');
    expect(toolMessage).not.toContain(FACT);
  });

  it("a result page's header names the parts fetch_url returns: part 2 reads on where part 1 ends", async () => {
    fakes.search.script('harbour crossing history', [
      { title: 'The long history', url: `${pages.base}/long`, snippet: 'Tolls, tides and ferries…' },
    ]);
    fakes.llm.enqueue(
      toolCallReply([{ name: 'web_search', arguments: { query: 'harbour crossing history' }, id: 's1' }]),
    );
    // The model reads on as the header tells it: the first two parts it names and the last.
    let named = 0;
    fakes.llm.fallback = (body) => {
      if (named > 0) return textReply('The history, read in part [1].');
      const messages = body.messages as Array<{ role: string; content: string }>;
      const page = messages.find((m) => m.role === 'tool')?.content ?? '';
      named = Number(/part=1…(\d+) reads all \1 parts in order\./.exec(page)?.[1] ?? 1);
      return toolCallReply(
        [...new Set([1, 2, named])].map((part) => ({
          name: 'fetch_url',
          arguments: { url: `${pages.base}/long`, part },
          id: `p${part}`,
        })),
      );
    };
    const { requests, result } = await runTurn('What happened in the history of the harbour crossing?', {
      AGENT_READ_RESULTS: '1',
    });

    const readInRound = requests[1]?.find((m) => m.role === 'tool' && m.tool_call_id === 's1')?.content ?? '';
    expect(readInRound).toContain('Source [1]\nThe long history');
    expect(named).toBeGreaterThanOrEqual(3);
    // Each part says it is that part of as many as the header named; part 2 opens with the paragraph
    // after part 1's last, and the last part ends with the article's last paragraph.
    // What each fetch_url call gave the model, as the turn's trace records it.
    const steps = (result.trace as AgentTrace).steps;
    const part = (n: number) =>
      steps.find((s) => s.action?.tool === 'fetch_url' && s.action.args?.['part'] === n)?.observation ?? '';
    for (const n of [1, 2, named]) expect(part(n)).toContain(`Part ${n} of ${named}.`);
    const first = paragraphsIn(part(1));
    const second = paragraphsIn(part(2));
    expect(first[0]).toBe(0);
    expect(second[0]).toBe((first.at(-1) ?? 0) + 1);
    expect(paragraphsIn(part(named)).at(-1)).toBe(239);
  }, 30_000);
});
