/**
 * The agent's default evaluation (seed 001: sufficient results *may* stop the loop — the
 * function-call model decides), what the model reads after thin or failed results, how the stop
 * reason and the model phases are shown with one model, the cost in the footer, and the
 * intermediate result returned after a failure.
 */
import { emptyView, foldEvent } from '../../src/render/view.js';
import { describe, expect, it } from 'vitest';
import type { AgentTrace } from '../../src/modes/turn/agent-trace.js';
import { type AgentExecutorOptions, createAgentExecutor } from '../../src/modes/agent/run-agent.js';
import { openAIErrorBody, textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { makeTurnContext, stepsOf } from './make-turn-context.js';
import { agentLimits, requestedModels, useModeFakes } from './mode-fakes.js';
import { scriptedDeadlines } from './scripted-deadlines.js';

const fakes = useModeFakes();

/** Agent limits with a low `minResultChars`, so that ordinary results count as sufficient. */
function limits(
  overrides: Partial<AgentExecutorOptions> = {},
): Omit<AgentExecutorOptions, 'function_call_llm'> {
  return agentLimits({ minResultChars: 200, ...overrides });
}

const search = (query: string) => ({ name: 'web_search', arguments: { query } });

// biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON
const toolMessages = (body: any): string[] =>
  body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content);

describe('agent evaluation by default', () => {
  it('sufficient results do not end the loop: the model runs the second search it needs, then stops', async () => {
    fakes.llm.enqueue(
      toolCallReply([search('Tokyo population 2025')]),
      toolCallReply([search('Delhi population 2025')]),
      textReply('Both populations found.'),
      textReply('Delhi [6] has overtaken Tokyo [1].'),
    );
    const tool = fakes.client('tool-model');
    const answer = fakes.client('answer-model');
    const turn = makeTurnContext({
      text: 'Compare the population of Tokyo and Delhi',
      llm: { tool, answer },
      env: fakes.env,
    });
    const result = await createAgentExecutor({
      function_call_llm: tool,
      answer_llm: answer,
      ...limits(),
    }).run(turn.ctx);

    // Five results are far more than 200 characters, yet the second, different search still ran.
    expect(fakes.search.requests.map((r) => r.query)).toEqual([
      'Tokyo population 2025',
      'Delhi population 2025',
    ]);
    expect(requestedModels(fakes)).toEqual(['tool-model', 'tool-model', 'tool-model', 'answer-model']);
    const evaluations = stepsOf(turn.view, 'evaluation');
    expect(evaluations).toHaveLength(2);
    for (const step of evaluations) {
      expect(step.body).toMatch(
        /^Results look sufficient \(\d+ characters\) — the function-call model decides/,
      );
      expect(step.collapsed).toBe(true);
    }
    // No "search again" note for the model when the results were sufficient.
    expect(toolMessages(fakes.llm.requests[1]!.body).join('\n')).not.toContain("Scout's evaluation");

    const modelSwitch = stepsOf(turn.view, 'model-switch')[0];
    expect(modelSwitch?.body).toBe(
      'Results are sufficient and the model needs no more tools — switching to the answer model\n' +
        'Tool-call model: openai/tool-model → answer model: openai/answer-model',
    );
    expect((result.trace as AgentTrace).finishReason).toBe('answered');
    expect(result.answer).toContain('[[6]](https://example.com/delhi-population-2025/1)');
    expect(result.answer).toContain('[[1]](https://example.com/tokyo-population-2025/1)');
  });

  it('empty results are judged insufficient and the model is told to search again differently', async () => {
    fakes.search.script('zorblax release', []);
    fakes.llm.enqueue(
      toolCallReply([search('zorblax release')]),
      toolCallReply([search('Zorblax 2.0 changelog')]),
      textReply('Found it.'),
      textReply('Zorblax 2.0 shipped [1].'),
    );
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({ text: 'When did Zorblax ship?', llm: { tool: llm }, env: fakes.env });
    await createAgentExecutor({ function_call_llm: llm, ...limits() }).run(turn.ctx);

    const evaluations = stepsOf(turn.view, 'evaluation').map((s) => s.body);
    expect(evaluations[0]).toBe('Results are empty or too short (0 of 200 characters) — searching more');
    const [firstRound] = toolMessages(fakes.llm.requests[1]!.body);
    expect(firstRound).toContain('</tool_output>');
    // The note sits after the delimited data, so it cannot be mistaken for (or forged by) a result.
    expect(firstRound!.slice(firstRound!.indexOf('</tool_output>'))).toContain(
      "Scout's evaluation: the results gathered so far are empty or too short",
    );
    expect(fakes.search.requests).toHaveLength(2);
  });

  it('with one model: both phases are labelled and the reason for stopping is still shown', async () => {
    fakes.llm.enqueue(
      toolCallReply([search('node 24 release date')]),
      textReply('Enough.'),
      textReply('Node 24 came out in May 2025 [1].'),
    );
    const llm = fakes.client('only-model');
    const turn = makeTurnContext({ text: 'When was Node 24 released?', llm: { tool: llm }, env: fakes.env });
    await createAgentExecutor({ function_call_llm: llm, ...limits() }).run(turn.ctx);

    // What the steps message labels each phase with (the renderer adds the role's icon).
    const phases = turn.events.flatMap((e) =>
      e.type === 'phase' ? [foldEvent(emptyView(), e, 'en').phase] : [],
    );
    expect(phases).toEqual(['🔧 openai/only-model', '✍️ openai/only-model']);
    expect(stepsOf(turn.view, 'model-switch')).toHaveLength(0);
    const closing = turn.view.steps.find((s) => s.id === 'final-evaluation');
    expect(closing?.body).toBe(
      'Results are sufficient and the model needs no more tools — switching to the answer model\n' +
        'The same model writes the answer: openai/only-model',
    );
  });

  it('a greeting answered without tools shows no evaluation at all', async () => {
    fakes.llm.enqueue(textReply('No search needed.'), textReply('Hello!'));
    const llm = fakes.client('only-model');
    const turn = makeTurnContext({ text: 'hi', llm: { tool: llm }, env: fakes.env });
    await createAgentExecutor({ function_call_llm: llm, ...limits() }).run(turn.ctx);
    expect(stepsOf(turn.view, 'evaluation')).toHaveLength(0);
    expect(turn.view.answer).toBe('Hello!');
  });

  it('a failed tool reaches the model through the error prompt', async () => {
    fakes.search.failWith = { status: 500 };
    fakes.llm.enqueue(
      toolCallReply([search('outage')]),
      textReply('Giving up on search.'),
      textReply('Sorry.'),
    );
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({ text: 'Anything?', llm: { tool: llm }, env: fakes.env });
    await createAgentExecutor({ function_call_llm: llm, ...limits() }).run(turn.ctx);
    const [message] = toolMessages(fakes.llm.requests[1]!.body);
    expect(message).toMatch(/^The tool `web_search` failed: .*Search failed/s);
    expect(message).toContain('This is an error report, not data about the question.');
  });
});

describe('agent statistics and recovery', () => {
  it('the footer shows each model, the total tokens and the cost from the built-in price table', async () => {
    fakes.llm.enqueue(
      toolCallReply([search('price check')], { usage: { inputTokens: 1_000, outputTokens: 100 } }),
      textReply('Enough.', { usage: { inputTokens: 1_200, outputTokens: 50 } }),
      textReply('Priced [1].', { usage: { inputTokens: 3_000, outputTokens: 500 } }),
    );
    const tool = fakes.client('gpt-4.1-mini');
    const answer = fakes.client('gpt-4.1');
    const turn = makeTurnContext({ text: 'What does it cost?', llm: { tool, answer }, env: fakes.env });
    const result = await createAgentExecutor({
      function_call_llm: tool,
      answer_llm: answer,
      ...limits(),
    }).run(turn.ctx);

    // gpt-4.1-mini: 2,200 × $0.40 + 150 × $1.60 per 1M; gpt-4.1: 3,000 × $2 + 500 × $8 per 1M.
    const expected = (2_200 * 0.4 + 150 * 1.6 + 3_000 * 2 + 500 * 8) / 1_000_000;
    expect(result.stats?.costUsd).toBeCloseTo(expected, 9);
    expect(result.stats?.totalTokens).toBe(5_850);
    expect(Object.keys(result.stats?.phases ?? {}).sort()).toEqual(['answer', 'tools']);
    const footer = turn.view.footer ?? '';
    expect(footer).toMatch(/^🔧 openai\/gpt-4\.1-mini ×2 · 2,200→150 tok · \d+\.\d s/);
    expect(footer).toContain(' | ✍️ openai/gpt-4.1 ×1 · 3,000→500 tok · ');
    expect(footer).toMatch(/ \| total 5,850 tok · ~\$0\.0111 · \d+\.\d s$/);
  });

  it('a tool phase that ends just before the time limit still leaves the answer its grace budget', async () => {
    // The time limit runs on the script's clock, not the machine's: a loaded machine cannot turn
    // "the tools end 10 ms before the limit" into "the tools time out".
    const clock = scriptedDeadlines();
    fakes.llm.enqueue(toolCallReply([search('slow search')]));
    let call = 0;
    fakes.llm.fallback = () => {
      call += 1;
      // The function-call model's closing reply: the tool phase ends 10 ms before the 400 ms limit.
      if (call === 1) {
        clock.advance(390);
        return textReply('Enough.');
      }
      // The answer takes 300 ms: the limit passes while it is written (a budget of the 10 ms left
      // would abort it here, synchronously, before the first token).
      clock.advance(300);
      return textReply('A complete answer [1].');
    };
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({ text: 'Slow?', llm: { tool: llm }, env: fakes.env });
    const result = await createAgentExecutor({
      function_call_llm: llm,
      clock,
      ...limits({ maxExecutionMs: 400, answerGraceMs: 3_000 }),
    }).run(turn.ctx);
    expect(result.answer).toContain('A complete answer');
    expect(turn.view.error).toBeUndefined();
    expect(stepsOf(turn.view, 'warning').map((s) => s.title)).not.toContain('_(The answer was cut short.)_');
    expect(stepsOf(turn.view, 'warning')).toEqual([]);
    // The limit did pass while the answer was written: only the tools' deadline fired.
    expect(clock.expired()).toBe(1);
  });

  it('an LLM error after a search returns the sources found so far with the friendly error', async () => {
    fakes.llm.enqueue(toolCallReply([search('first round')]), {
      status: 500,
      body: openAIErrorBody('boom', 'server_error'),
    });
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({ text: 'Dig', llm: { tool: llm }, env: fakes.env });
    const result = await createAgentExecutor({ function_call_llm: llm, ...limits() }).run(turn.ctx);

    expect(turn.view.error).toContain('/mode chat');
    expect(result.answer).toMatch(/^Sources found before the error \(5\): \[\[1\]\]\(https:\/\/example\.com/);
    expect(result.answer).toContain('**References**\n1. [Result 1 for first round]');
    expect(turn.view.sources).toHaveLength(5);
    // What the user is shown is what history keeps for the model's later turns.
    expect(turn.view.answer).toBe(result.answer);
    expect((result.trace as AgentTrace).finishReason).toBe('error');
  });

  it('in Chinese, the sources found before an error are shown and kept in Chinese', async () => {
    fakes.llm.enqueue(toolCallReply([search('first round')]), {
      status: 500,
      body: openAIErrorBody('boom', 'server_error'),
    });
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({ text: 'Dig', llm: { tool: llm }, env: fakes.env, locale: 'zh' });
    const result = await createAgentExecutor({ function_call_llm: llm, ...limits() }).run(turn.ctx);

    expect(result.answer).toMatch(/^出错前找到的来源（5 条）： \[\[1\]\]\(https:\/\/example\.com/);
    expect(result.answer).toContain('**参考文献**\n1. [Result 1 for first round]');
    expect(turn.view.answer).toBe(result.answer);
  });
});
