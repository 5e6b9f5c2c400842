/**
 * A turn's tool results within LLM_CONTEXT_WINDOW. Pages are read by characters, and a page of
 * Chinese text is about three times the tokens of an English one: an agent reading the top two
 * results of three searches passes a small window in its third round. The fake model here refuses,
 * as OpenAI does (`context_length_exceeded`), every request whose messages and max_tokens pass the
 * window as gpt-tokenizer counts them; the turn must still answer, with the oldest pages shortened.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentOptionsFromContext, createAgentExecutor } from '../../src/modes/agent/run-agent.js';
import type { AgentTrace } from '../../src/modes/turn/agent-trace.js';
import { mcpResultToOutput } from '../../src/mcp/mcp-result.js';
import { createPlanRunner } from '../../src/modes/plan/run-plan.js';
import type { ChatMessage, LlmClient } from '../../src/llm/types.js';
import type { Tool } from '../../src/tools/types.js';
import { type Script, textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { type SentMessage, modelWithWindow as windowedModel } from '../helpers/windowed-model.js';
import { chineseParagraph } from '../helpers/chinese-text.js';
import { warmReader } from '../reader/warm-reader.js';
import { makeTurnContext, stepsOf } from './make-turn-context.js';
import { agentLimits, requestedModels, useModeFakes } from './mode-fakes.js';
import { realToolsTurn } from './real-tools-turn.js';

const fakes = useModeFakes();

function englishParagraph(page: number, index: number): string {
  return `Paragraph ${index} of report ${page}: the harbour authority met again about the crossing, and the minutes record another long debate about tolls, tides and the ferry timetable.`;
}

function article(title: string, paragraphs: string[]): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><article><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}</article></body></html>`;
}

const PAGES = 6;
let server: Server;
let base: string;
beforeAll(async () => {
  await warmReader();
  server = createServer((req, res) => {
    const match = /^\/(zh|en)\/(\d)$/.exec(req.url ?? '');
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    const page = Number(match[2]);
    const paragraphs = Array.from({ length: 40 }, (_, i) =>
      match[1] === 'zh' ? chineseParagraph(page, i) : englishParagraph(page, i),
    );
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(article(match[1] === 'zh' ? `港口交通报告第${page}篇` : `Harbour report ${page}`, paragraphs));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A fake model with a window: it answers with `replies` in order, and refuses what does not fit. */
function modelWithWindow(window: number, replies: Script[]): { sizes: number[]; refused: number[] } {
  return windowedModel(fakes.llm, window, () => replies.shift() ?? textReply('(no more replies)'));
}

/** Three rounds, each a search whose two results (pages 2r-1 and 2r) the agent reads. */
function threeRounds(language: 'zh' | 'en', answer: string): Script[] {
  for (let round = 1; round <= 3; round++) {
    fakes.search.script(`harbour traffic ${round}`, [
      { title: `Report ${2 * round - 1}`, url: `${base}/${language}/${2 * round - 1}`, snippet: '…' },
      { title: `Report ${2 * round}`, url: `${base}/${language}/${2 * round}`, snippet: '…' },
    ]);
  }
  return [
    ...[1, 2, 3].map((round) =>
      toolCallReply([
        { name: 'web_search', arguments: { query: `harbour traffic ${round}` }, id: `s${round}` },
      ]),
    ),
    textReply('The reports answer it.'),
    textReply(answer),
  ];
}

async function runTurn(env: Record<string, string>) {
  const { turn } = realToolsTurn(fakes, 'How busy is the harbour crossing?', {
    AGENT_READ_RESULTS: '2',
    ...env,
  });
  const result = await createAgentExecutor({
    ...agentOptionsFromContext(turn.ctx),
    minResultChars: 1_000_000,
  }).run(turn.ctx);
  return { result, events: turn.events };
}

/** An agent turn with one tool, a function-call model and an answer model, in a window of `window` tokens. */
async function runWithTool(
  text: string,
  tool: LlmClient,
  only: Tool,
  window: number,
  history: ChatMessage[] = [],
) {
  const answer = fakes.client('answer-model');
  const turn = makeTurnContext({
    text,
    llm: { tool, answer },
    tools: [only],
    env: { LLM_CONTEXT_WINDOW: String(window) },
  });
  turn.ctx.history = history;
  const result = await createAgentExecutor({
    function_call_llm: tool,
    answer_llm: answer,
    ...agentLimits(),
  }).run(turn.ctx);
  return { result, turn };
}

/**
 * An archive search whose result list (never shortened: the answer's citations point at its
 * numbers) holds `records` records with a Chinese paragraph each: 45 fill half of an 8,000 window.
 */
function archiveLookup(records: number): Tool {
  const lookup: Tool<{ topic: string }> = {
    name: 'lookup',
    description: 'Searches the archive',
    inputSchema: z.object({ topic: z.string() }),
    run: async () => ({
      text: '',
      sources: Array.from({ length: records }, (_, i) => ({
        title: `Archive record ${i + 1}`,
        url: `https://archive.example/${i + 1}`,
        snippet: chineseParagraph(9, i),
      })),
    }),
  };
  return lookup as Tool;
}

const sent = (index: number) => (fakes.llm.requests[index]?.body.messages ?? []) as SentMessage[];
const toolMessage = (index: number, id: string) =>
  sent(index).find((m) => m.role === 'tool' && m.tool_call_id === id)?.content ?? '';

/** Page `n`'s block in a tool message or prompt: from `Source [n]` to the end of its delimiters. */
function pageBlock(text: string, n: number): string {
  const start = text.indexOf(`Source [${n}]\n`);
  if (start < 0) return '';
  const end = text.indexOf('\n</tool_output>', start);
  return text.slice(start, end < 0 ? undefined : end);
}

/** A tool message's delimited output, without what the agent appended after it (the evaluation's note). */
function outputBlock(content: string): string {
  const end = content.indexOf('\n</tool_output>');
  return end < 0 ? content : content.slice(0, end + '\n</tool_output>'.length);
}

/** The page's text before the note a shortened page ends with. */
const beforeNote = (block: string) => block.split('\n\n[Shortened to fit the context window')[0] ?? '';

describe('tool results within the context window', () => {
  it('an agent turn on Chinese pages answers within a small window, the oldest pages shortened first', async () => {
    // Each round brings two Chinese pages of about 2,150 tokens: the third round passes the window.
    const WINDOW = 13_000;
    const model = modelWithWindow(WINDOW, threeRounds('zh', 'The crossing is busy [1][5].'));
    const { result } = await runTurn({ LLM_CONTEXT_WINDOW: String(WINDOW) });

    // Every request the model saw fit its window, and the turn answered.
    expect(model.refused).toEqual([]);
    expect(model.sizes).toHaveLength(5);
    expect((result.trace as AgentTrace).finishReason).toBe('answered');
    expect(result.answer).toContain(`[[1]](${base}/zh/1)`);

    // The third round's results fit only with the first round's pages shortened: the oldest page
    // most, cut to a head of what it was, and the newest round's pages sent whole.
    const firstRound = toolMessage(1, 's1');
    const afterThirdRound = toolMessage(3, 's1');
    expect(afterThirdRound.length).toBeLessThan(firstRound.length);
    expect(afterThirdRound).toContain('[1] Report 1');
    expect(afterThirdRound).toContain('[2] Report 2');
    // Its note names the parts fetch_url reads it in: at this window's page budget, one.
    const oldest = pageBlock(afterThirdRound, 1);
    expect(pageBlock(firstRound, 1)).toMatch(/; part=1 reads it whole\.\n/);
    expect(oldest).toContain(
      'the rest of source [1] is left out. To read more of it, call fetch_url with its URL and part=1 (the whole page).',
    );
    // The next oldest keeps a head of its text, cut where a paragraph or line ends.
    const next = beforeNote(pageBlock(afterThirdRound, 2));
    const nextWhole = pageBlock(firstRound, 2);
    expect(next.length).toBeGreaterThan(pageBlock(firstRound, 1).length / 3);
    expect(nextWhole.startsWith(next)).toBe(true);
    expect(nextWhole.length).toBeGreaterThan(next.length);
    expect(nextWhole.slice(next.length)).toMatch(/^\n/);
    expect(toolMessage(3, 's2')).toBe(toolMessage(2, 's2'));
    expect(toolMessage(3, 's3')).not.toContain('[Shortened');

    // The answer prompt keeps every source's number and title; its oldest page is shortened, the newest is whole.
    const answerPrompt = sent(4)
      .map((m) => m.content ?? '')
      .join('\n');
    for (let n = 1; n <= PAGES; n++) {
      expect(answerPrompt).toContain(`[${n}] Report ${n} — ${base}/zh/${n}`);
      expect(answerPrompt).toContain(`Source [${n}]\n港口交通报告第${n}篇`);
    }
    expect(pageBlock(answerPrompt, 1)).toMatch(
      /\[Shortened to fit the context window: the rest of source \[1\] is left out\.\]$/,
    );
    expect(pageBlock(answerPrompt, 1)).not.toContain('fetch_url');
    expect(pageBlock(answerPrompt, PAGES)).toBe(pageBlock(toolMessage(3, 's3'), PAGES));
  }, 60_000);

  it('English pages that fit are sent exactly as with no limit at all', async () => {
    const unlimited = modelWithWindow(2_000_000, threeRounds('en', 'Busy [1].'));
    await runTurn({ LLM_CONTEXT_WINDOW: '2000000' });
    const withoutLimit = fakes.llm.requests.map((r) => r.body.messages);

    fakes.llm.requests.length = 0;
    const usual = modelWithWindow(64_000, threeRounds('en', 'Busy [1].'));
    await runTurn({});
    const atDefault = fakes.llm.requests.map((r) => r.body.messages);

    expect(unlimited.refused).toEqual([]);
    expect(usual.refused).toEqual([]);
    expect(atDefault).toHaveLength(5);
    expect(atDefault).toEqual(withoutLimit);
    expect(JSON.stringify(atDefault)).not.toContain('[Shortened');
  }, 60_000);

  it('ends the tool phase with a notice when nothing left can be shortened, and still answers', async () => {
    const WINDOW = 8_000;
    // The lookup's list fills half the window.
    const lookup = archiveLookup(45);
    const model = modelWithWindow(WINDOW, [
      toolCallReply([{ name: 'lookup', arguments: { topic: 'harbour' }, id: 'l1' }]),
      textReply('The archive says it is busy.'),
    ]);
    // The function-call model keeps 4,000 tokens for its output and the answer model 500: the lookup
    // leaves the one no room for another request, and the other room to answer.
    const tool = fakes.client('tool-model', 'openai', 4_000);
    const { result, turn } = await runWithTool('How busy is the harbour?', tool, lookup, WINDOW);

    expect(model.refused).toEqual([]);
    expect(requestedModels(fakes)).toEqual(['tool-model', 'answer-model']);
    expect((result.trace as AgentTrace).finishReason).toBe('context_full');
    expect(stepsOf(turn.view, 'warning').map((s) => s.title)).toEqual([
      'The results gathered fill the model’s context window, so the search stopped here; answering from what was gathered',
    ]);
    expect(result.answer).toBe('The archive says it is busy.');
  });

  it('the answer prompt leaves out the oldest turns when the results, cut as far as they go, still do not fit', async () => {
    const WINDOW = 8_000;
    const lookup = archiveLookup(45);
    // Three earlier turns, about 4,300 tokens: within what the turn's start lets the history take
    // (the window less 2,000, the tool model's 500 of output and the question), not beside the lookup.
    const history: ChatMessage[] = [1, 2, 3].flatMap((turn) => [
      { role: 'user' as const, content: `第${turn}个问题：港口的情况如何？` },
      {
        role: 'assistant' as const,
        content: Array.from({ length: 12 }, (_, i) => chineseParagraph(turn, i)).join(''),
      },
    ]);
    const model = modelWithWindow(WINDOW, [
      toolCallReply([{ name: 'lookup', arguments: { topic: 'harbour' }, id: 'l1' }]),
      textReply('The archive says it is busy [1].'),
    ]);
    const { result } = await runWithTool(
      'How busy is the harbour?',
      fakes.client('tool-model'),
      lookup,
      WINDOW,
      history,
    );

    expect(model.refused).toEqual([]);
    expect(result.answer).toContain('The archive says it is busy');
    // The function-call model had the whole history; the answer model the newest turns that fit,
    // whole, and every archive record's number and title.
    expect(sent(0).filter((m) => m.role === 'assistant')).toHaveLength(3);
    const answerHistory = sent(1).slice(1, -1);
    expect(answerHistory.length).toBeGreaterThan(0);
    expect(answerHistory.length).toBeLessThan(history.length);
    expect(answerHistory).toEqual(
      history.slice(-answerHistory.length).map((m) => ({ role: m.role, content: m.content })),
    );
    expect(answerHistory[0]?.role).toBe('user');
    const prompt = sent(1).at(-1)?.content ?? '';
    for (let n = 1; n <= 45; n++) expect(prompt).toContain(`[${n}] Archive record ${n}`);
  });

  it("an MCP tool's long output is shortened when the window fills; the newest result is sent whole", async () => {
    const WINDOW = 8_000;
    // An MCP server's text comes as mcpResultToOutput makes it: up to 20,000 characters, no page.
    const archive: Tool<{ topic: string }> = {
      name: 'archive__lookup',
      description: 'Looks a topic up in the harbour archive',
      inputSchema: z.object({ topic: z.string() }),
      run: async ({ topic }) =>
        mcpResultToOutput({
          content: [
            {
              type: 'text',
              text: Array.from({ length: 130 }, (_, i) => `${topic}: ${englishParagraph(9, i)}`).join('\n\n'),
            },
          ],
        }),
    };
    const model = modelWithWindow(WINDOW, [
      toolCallReply([{ name: 'archive__lookup', arguments: { topic: 'tolls' }, id: 'l1' }]),
      toolCallReply([{ name: 'archive__lookup', arguments: { topic: 'tides' }, id: 'l2' }]),
      textReply('The archive covers it.'),
      textReply('Tolls and tides were debated for years.'),
    ]);
    const { result } = await runWithTool(
      'What did the harbour authority debate?',
      fakes.client('tool-model'),
      archive as Tool,
      WINDOW,
    );

    // Each output is about 4,500 tokens: two do not fit the window together.
    expect(model.refused).toEqual([]);
    expect((result.trace as AgentTrace).finishReason).toBe('answered');
    expect(model.sizes).toHaveLength(4);
    expect(result.answer).toBe('Tolls and tides were debated for years.');

    // The older output was cut to a head of itself, with a note; the newest went whole.
    const whole = outputBlock(toolMessage(1, 'l1'));
    const shortened = outputBlock(toolMessage(2, 'l1'));
    const cutByMcp = /\[Output cut: 20000 of \d+ characters shown\.\]\n<\/tool_output>$/;
    expect(whole).toMatch(cutByMcp);
    expect(shortened.length).toBeLessThan(whole.length / 2);
    const note =
      '\n\n[Shortened to fit the context window: the rest of this output is left out.]\n</tool_output>';
    expect(shortened.endsWith(note)).toBe(true);
    expect(whole.startsWith(shortened.slice(0, -note.length))).toBe(true);
    const newest = outputBlock(toolMessage(2, 'l2'));
    expect(newest).toMatch(cutByMcp);
    expect(newest.startsWith('<tool_output name="archive__lookup">\ntides: Paragraph 0')).toBe(true);
    // The answer model reads the newest output whole as well.
    const answerPrompt = sent(3)
      .map((m) => m.content ?? '')
      .join('\n');
    expect(answerPrompt).toContain(newest);
  });

  it("plan mode's summary prompt fits the window: the oldest page is shortened, every source keeps its number", async () => {
    const WINDOW = 8_000;
    const readPage: Tool<{ n: number }> = {
      name: 'read_page',
      description: 'Reads one archived report',
      inputSchema: z.object({ n: z.number() }),
      run: async ({ n }) => ({
        text: `港口交通报告第${n}篇\n\n${Array.from({ length: 30 }, (_, i) => chineseParagraph(n, i)).join('\n\n')}`,
        sources: [{ title: `Report ${n}`, url: `https://archive.example/${n}`, snippet: '…' }],
        isPage: true,
      }),
    };
    const plan = JSON.stringify({
      steps: [1, 2, 3].map((n) => ({
        step: n,
        description: `read report ${n}`,
        tool: 'read_page',
        parameters: { n },
      })),
    });
    const model = modelWithWindow(WINDOW, [
      textReply(plan),
      textReply('Busy, by all three reports [1][2][3].'),
    ]);
    const llm = fakes.client('planner-model');
    const turn = makeTurnContext({
      text: 'How busy is the harbour?',
      llm: { tool: llm },
      tools: [readPage as Tool],
      env: { LLM_CONTEXT_WINDOW: String(WINDOW) },
    });
    const result = await createPlanRunner()(turn.ctx);

    expect(model.refused).toEqual([]);
    expect(result.answer).toContain('[[3]](https://archive.example/3)');
    const summaryPrompt = sent(1)
      .map((m) => m.content ?? '')
      .join('\n');
    for (const n of [1, 2, 3]) expect(summaryPrompt).toContain(`Source [${n}]\n港口交通报告第${n}篇`);
    expect(pageBlock(summaryPrompt, 1)).toContain(
      '[Shortened to fit the context window: the rest of source [1] is left out.]',
    );
    expect(pageBlock(summaryPrompt, 3)).not.toContain('[Shortened');
  });
});
