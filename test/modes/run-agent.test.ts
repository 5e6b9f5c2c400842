import { t } from '../../src/i18n/translate.js';
import { emptyView, foldEvent } from '../../src/render/view.js';
import { describe, expect, it, vi } from 'vitest';
import type { AgentTrace } from '../../src/modes/turn/agent-trace.js';
import { createAgentExecutor } from '../../src/modes/agent/run-agent.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { makeSearch, makeTurnContext, stepsOf, testConfig } from './make-turn-context.js';
import { agentLimits, requestedModels, useModeFakes } from './mode-fakes.js';
import { scriptedDeadlines } from './scripted-deadlines.js';

const fakes = useModeFakes();

const search = (query: string, id?: string) => ({
  name: 'web_search',
  arguments: { query },
  ...(id ? { id } : {}),
});

describe('agent mode over real HTTP', () => {
  it('with stopWhenSufficient, searches until the results suffice, then the answer model writes a cited answer', async () => {
    fakes.search.script('rust release', [
      { title: 'Rust blog', url: 'https://blog.rust-lang.org/a', snippet: 'short' },
    ]);
    fakes.search.script('rust 1.80 notes', [
      {
        title: 'Rust 1.80 notes',
        url: 'https://blog.rust-lang.org/1.80',
        snippet: 'LazyCell and LazyLock are stable. '.repeat(3),
      },
      { title: 'Rust blog', url: 'https://blog.rust-lang.org/a', snippet: 'short' },
    ]);
    fakes.llm.enqueue(
      toolCallReply([search('rust release')], { text: 'I should search.' }),
      toolCallReply([search('rust 1.80 notes')]),
      textReply('Rust 1.80 made LazyCell stable [2], as the blog says [1].'),
    );
    const tool = fakes.client('tool-model');
    const answer = fakes.client('answer-model');
    const turn = makeTurnContext({ text: 'What is new in Rust?', llm: { tool, answer }, env: fakes.env });
    const result = await createAgentExecutor({
      function_call_llm: tool,
      answer_llm: answer,
      ...agentLimits({ minResultChars: 150, stopWhenSufficient: true }),
    }).run(turn.ctx);

    expect(requestedModels(fakes)).toEqual(['tool-model', 'tool-model', 'answer-model']);
    const [first, second, last] = fakes.llm.requests.map((r) => r.body);
    expect(first.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['web_search']);
    // The observation the tool model reads uses the answer-wide numbers, inside data delimiters.
    const toolMessage = second.messages.find((m: { role: string }) => m.role === 'tool');
    expect(toolMessage.content).toContain('<tool_output name="web_search">');
    expect(toolMessage.content).toContain('[1] Rust blog — https://blog.rust-lang.org/a');
    // The answer call has no tools and gets the question plus every numbered observation.
    expect(last.tools).toBeUndefined();
    const answerPrompt = last.messages.at(-1).content as string;
    expect(answerPrompt).toContain('What is new in Rust?');
    expect(answerPrompt).toContain('[2] Rust 1.80 notes');
    expect(last.messages[0].content).toContain('writing the final answer');

    // A URL found twice keeps its first number; the answer cites both sources, linked.
    expect(result.answer).toContain('[[2]](https://blog.rust-lang.org/1.80)');
    expect(result.answer).toContain('[[1]](https://blog.rust-lang.org/a)');
    expect(result.answer).toContain('**References**');
    expect(turn.view.answerFinal).toBe(true);
    expect(turn.view.sources.map((s) => s.n)).toEqual([1, 2]);

    expect(stepsOf(turn.view, 'search').map((s) => [s.title, s.status])).toEqual([
      ['Searched: rust release', 'done'],
      ['Searched: rust 1.80 notes', 'done'],
    ]);
    const results = stepsOf(turn.view, 'search-results');
    expect(results.map((s) => s.title)).toEqual(['Found 1 result', 'Found 2 results']);
    expect(results.every((s) => s.collapsed)).toBe(true);
    expect(results[1]?.body).toContain('[2] Rust 1.80 notes\nLazyCell');
    expect(results[1]?.body).toContain('[1] Rust blog\nshort');
    const evaluations = stepsOf(turn.view, 'evaluation').map((s) => s.body);
    expect(evaluations[0]).toContain('searching more');
    expect(evaluations[1]).toBe('Results are sufficient — switching to the answer model');
    const modelSwitch = stepsOf(turn.view, 'model-switch')[0];
    expect(modelSwitch?.body).toContain('openai/tool-model');
    expect(modelSwitch?.body).toContain('openai/answer-model');
    // What the steps message labels each phase with (the renderer adds the role's icon).
    const phases = turn.events.flatMap((e) =>
      e.type === 'phase' ? [foldEvent(emptyView(), e, 'en').phase] : [],
    );
    expect(phases).toEqual(['🔧 openai/tool-model', '✍️ openai/answer-model']);

    const trace = result.trace as AgentTrace;
    expect(trace.finishReason).toBe('sufficient');
    expect(trace.usedTools['web_search']).toMatchObject({ count: 2, errors: 0 });
    expect(trace.steps[0]?.thought).toBe('I should search.');
    expect(trace.steps[0]?.action).toEqual({
      type: 'action',
      tool: 'web_search',
      args: { query: 'rust release' },
    });
    expect(trace.finalAnswer).toBe(result.answer);
  });

  it('runs the tool calls of one step concurrently and keeps their results in call order', async () => {
    // Every search is held until all three reached the provider: one at a time, the first would
    // never be answered and the second never asked (an event, not "three 300 ms searches took less
    // than 800 ms", which a busy machine could miss).
    let release!: () => void;
    fakes.search.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    fakes.llm.enqueue(
      toolCallReply([search('alpha'), search('beta'), search('gamma')]),
      textReply('Done.'),
      textReply('Alpha [1], beta [6], gamma [11].'),
    );
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({ text: 'Compare them', llm: { tool: llm }, env: fakes.env });
    const running = createAgentExecutor({ function_call_llm: llm, ...agentLimits() }).run(turn.ctx);
    try {
      await vi.waitFor(() => expect(fakes.search.requests).toHaveLength(3), { timeout: 15_000 });
    } finally {
      release();
    }
    await running;

    const finishes = turn.events.filter((e) => e.type === 'step-finish' && /^r1-\d$/.test(e.id));
    expect(finishes).toHaveLength(3);
    expect(fakes.search.requests).toHaveLength(3);
    // The Search results step shows the count and the top three, with answer-wide numbers.
    const shown = stepsOf(turn.view, 'search-results')[1];
    expect(shown?.title).toBe('Found 5 results');
    expect(shown?.body.match(/^\[\d+\]/gm)).toEqual(['[6]', '[7]', '[8]']);

    const toolMessages = fakes.llm.requests[1]!.body.messages.filter(
      (m: { role: string }) => m.role === 'tool',
    );
    expect(toolMessages.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual([
      'call_1',
      'call_2',
      'call_3',
    ]);
    expect(toolMessages[0].content).toContain('[1] Result 1 for alpha');
    expect(toolMessages[1].content).toContain('[6] Result 1 for beta');
    expect(toolMessages[2].content).toContain('[11] Result 1 for gamma');
  });

  it('stops at the iteration limit with a notice and still answers from what was gathered', async () => {
    let n = 0;
    fakes.llm.fallback = (body) =>
      body.tools
        ? toolCallReply([search(`query number ${++n}`)])
        : textReply('Answer from two searches [1].');
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({ text: 'Keep digging', llm: { tool: llm }, env: fakes.env });
    const result = await createAgentExecutor({
      function_call_llm: llm,
      ...agentLimits({ maxIterations: 2 }),
    }).run(turn.ctx);

    expect(fakes.llm.requests.filter((r) => r.body.tools)).toHaveLength(2);
    expect(fakes.search.requests).toHaveLength(2);
    const notice = stepsOf(turn.view, 'warning')[0];
    expect(notice?.title).toContain('iteration limit (2)');
    expect(notice?.collapsed).toBe(false);
    expect(result.answer).toContain('Answer from two searches');
    expect((result.trace as AgentTrace).finishReason).toBe('max_iterations');
  });

  it('aborts a slow run at the time limit and answers from the intermediate results', async () => {
    fakes.llm.enqueue(
      toolCallReply([search('first round')]),
      // The second round's call never answers: only the time limit can end it.
      { hang: true },
      textReply('From the first round [1].'),
    );
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({ text: 'Slow question', llm: { tool: llm }, env: fakes.env });
    // The limit passes on the script's clock while that call is under way, however slow the machine.
    const clock = scriptedDeadlines();
    const running = createAgentExecutor({
      function_call_llm: llm,
      ...agentLimits({ maxExecutionMs: 400, answerGraceMs: 5_000, clock }),
    }).run(turn.ctx);
    await vi.waitFor(() => expect(fakes.llm.requests).toHaveLength(2), { timeout: 15_000 });
    clock.advance(400);
    const result = await running;

    expect(clock.expired()).toBe(1);
    expect(fakes.search.requests.map((r) => r.query)).toEqual(['first round']);
    expect(stepsOf(turn.view, 'warning')[0]?.title).toContain('timed out');
    // The answer call still ran, with the first round's results.
    const answerRequest = fakes.llm.requests[2]!.body;
    expect(answerRequest.tools).toBeUndefined();
    expect(answerRequest.messages.at(-1).content).toContain('Result 1 for first round');
    expect(result.answer).toContain('From the first round');
    expect((result.trace as AgentTrace).finishReason).toBe('timeout');
    expect(turn.view.steps.some((s) => s.status === 'running')).toBe(false);
  });

  it('detects a repeated query and stops with a notice suggesting to rephrase', async () => {
    fakes.llm.enqueue(
      toolCallReply([search('Paris weather')]),
      toolCallReply([search('  paris   WEATHER? ')]),
      textReply('Here is what I found [1].'),
    );
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({ text: 'Weather?', llm: { tool: llm }, env: fakes.env });
    const result = await createAgentExecutor({ function_call_llm: llm, ...agentLimits() }).run(turn.ctx);

    expect(fakes.search.requests).toHaveLength(1);
    const notice = stepsOf(turn.view, 'warning')[0];
    expect(notice?.title).toContain('rephrasing');
    expect(notice?.title).toContain('/mode chat');
    expect((result.trace as AgentTrace).finishReason).toBe('loop');
    expect(result.answer).toContain('Here is what I found');
  });

  it('answers a call repeated beside a new one with a note to the model, in the turn language', async () => {
    for (const locale of ['en', 'zh'] as const) {
      fakes.llm.requests.length = 0;
      fakes.llm.enqueue(
        toolCallReply([search(`alpha ${locale}`, 'a1')]),
        toolCallReply([search(`alpha ${locale}`, 'a2'), search(`beta ${locale}`, 'b2')]),
        textReply('Done.'),
        textReply('Answer [1].'),
      );
      const llm = fakes.client('tool-model');
      const turn = makeTurnContext({ text: 'Q', llm: { tool: llm }, env: fakes.env, locale });
      await createAgentExecutor({ function_call_llm: llm, ...agentLimits() }).run(turn.ctx);

      const toolMessages = fakes.llm.requests[2]!.body.messages.filter(
        (m: { role: string }) => m.role === 'tool',
      );
      const repeated = toolMessages.find((m: { tool_call_id: string }) => m.tool_call_id === 'a2');
      const fresh = toolMessages.find((m: { tool_call_id: string }) => m.tool_call_id === 'b2');
      // The same words the catalog has for it, in the turn's language.
      expect(repeated.content).toContain(t(locale, 'agent.repeated-call'));
      expect(fresh.content).not.toContain(t(locale, 'agent.repeated-call'));
    }
  });

  it('shows a failed search step, tells the model, and still answers', async () => {
    fakes.search.failWith = { status: 500 };
    fakes.llm.enqueue(
      toolCallReply([search('outage')]),
      textReply('Search is down; I will answer from memory.'),
      textReply('From memory: it depends.'),
    );
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({ text: 'Anything?', llm: { tool: llm }, env: fakes.env });
    const result = await createAgentExecutor({ function_call_llm: llm, ...agentLimits() }).run(turn.ctx);

    const step = stepsOf(turn.view, 'search')[0];
    expect(step?.status).toBe('failed');
    expect(step?.title).toContain('Search failed: outage');
    expect(stepsOf(turn.view, 'search-results')).toHaveLength(0);
    const toolMessage = fakes.llm.requests[1]!.body.messages.find((m: { role: string }) => m.role === 'tool');
    expect(toolMessage.content).toMatch(/Search failed/);
    expect(result.answer).toBe('From memory: it depends.');
    expect(turn.view.error).toBeUndefined();
    expect((result.trace as AgentTrace).usedTools['web_search']).toMatchObject({ count: 1, errors: 1 });
  });

  it('serves a query repeated within the session from the cache without an HTTP request', async () => {
    const config = testConfig(fakes.env);
    const sharedSearch = makeSearch(config);
    const llm = fakes.client('tool-model');
    for (const _turn of [1, 2]) {
      fakes.llm.enqueue(
        toolCallReply([search('Tokyo population')]),
        textReply('Enough.'),
        textReply('About 14 million [1].'),
      );
    }
    const first = makeTurnContext({
      text: 'Tokyo?',
      llm: { tool: llm },
      env: fakes.env,
      search: sharedSearch,
    });
    await createAgentExecutor({ function_call_llm: llm, ...agentLimits() }).run(first.ctx);
    const second = makeTurnContext({
      text: 'Tokyo again?',
      llm: { tool: llm },
      env: fakes.env,
      search: sharedSearch,
    });
    const result = await createAgentExecutor({ function_call_llm: llm, ...agentLimits() }).run(second.ctx);

    expect(fakes.search.requests).toHaveLength(1);
    expect(stepsOf(first.view, 'search')[0]?.title).toBe('Searched: Tokyo population');
    expect(stepsOf(second.view, 'search')[0]?.title).toBe('Searched: Tokyo population (cached)');
    expect(result.answer).toContain('[[1]](https://example.com/tokyo-population/1)');
  });
});
