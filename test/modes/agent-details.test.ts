import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentTrace } from '../../src/modes/turn/agent-trace.js';
import { createLogger } from '../../src/logger.js';
import { createAgentExecutor, runAgent } from '../../src/modes/agent/run-agent.js';
import type { Tool } from '../../src/tools/types.js';
import { openAIErrorBody, textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { itWithShared, loadChunkFixture } from '../helpers/fixtures.js';
import { makeTurnContext, stepsOf } from './make-turn-context.js';
import { agentLimits, useModeFakes } from './mode-fakes.js';

const fakes = useModeFakes();

const limits = agentLimits();

describe('agent mode details', () => {
  itWithShared('runs the recorded DeepSeek reasoner tool call and sends reasoning_content back', async () => {
    const weather: Tool<{ location: string }> = {
      name: 'weather',
      description: 'Current weather for a location',
      inputSchema: z.object({ location: z.string() }),
      run: async ({ location }) => ({ text: `${location}: sunny, 18 °C` }),
    };
    fakes.llm.enqueue(
      { chunks: loadChunkFixture('deepseek-tool-call') },
      textReply('I have the weather now.', { reasoning: 'The tool answered.' }),
      textReply('It is sunny in San Francisco.'),
    );
    const llm = fakes.client('deepseek-reasoner', 'deepseek');
    const turn = makeTurnContext({ text: 'Weather in SF?', llm: { tool: llm }, tools: [weather as Tool] });
    const result = await createAgentExecutor({ function_call_llm: llm, ...limits }).run(turn.ctx);

    const second = fakes.llm.requests[1]!.body;
    const assistant = second.messages.find((m: { role: string }) => m.role === 'assistant');
    expect(assistant.reasoning_content).toContain('The user is asking for the weather in San Francisco.');
    expect(assistant.tool_calls[0].id).toBe('call_00_ioIn7yN9p1ZOMNpDLwd4MgAF');
    const tool = second.messages.find((m: { role: string }) => m.role === 'tool');
    expect(tool.tool_call_id).toBe('call_00_ioIn7yN9p1ZOMNpDLwd4MgAF');
    expect(tool.content).toContain('San Francisco: sunny, 18 °C');

    const thinking = stepsOf(turn.view, 'thinking');
    expect(thinking.length).toBeGreaterThanOrEqual(1);
    expect(thinking[0]?.title).toBe('Thought process');
    expect(thinking[0]?.collapsed).toBe(true);
    expect(thinking[0]?.body).toContain('weather tool');
    expect(stepsOf(turn.view, 'tool')[0]?.status).toBe('done');
    expect(result.answer).toBe('It is sunny in San Francisco.');
    expect((result.trace as AgentTrace).tokenUsage.reasoningTokens).toBe(39);
  });

  it('reports per-model statistics that add up to the usage the server reported', async () => {
    fakes.llm.enqueue(
      toolCallReply([{ name: 'web_search', arguments: { query: 'stats' } }], {
        usage: { inputTokens: 100, outputTokens: 20 },
      }),
      textReply('Enough.', { usage: { inputTokens: 120, outputTokens: 30 } }),
      textReply('Answer [1].', { usage: { inputTokens: 200, outputTokens: 50, reasoningTokens: 10 } }),
    );
    const tool = fakes.client('tool-model');
    const answer = fakes.client('answer-model');
    const turn = makeTurnContext({ text: 'Stats?', llm: { tool, answer }, env: fakes.env });
    const result = await createAgentExecutor({ function_call_llm: tool, answer_llm: answer, ...limits }).run(
      turn.ctx,
    );

    const stats = result.stats!;
    expect(stats.models).toEqual([
      expect.objectContaining({
        label: 'openai/tool-model',
        role: 'function_call',
        calls: 2,
        inputTokens: 220,
        outputTokens: 50,
      }),
      expect.objectContaining({
        label: 'openai/answer-model',
        role: 'answer',
        calls: 1,
        inputTokens: 200,
        outputTokens: 50,
        reasoningTokens: 10,
      }),
    ]);
    expect(stats.totalTokens).toBe(520);
    expect(stats.toolCalls).toBe(1);
    expect(stats.searches).toBe(1);
    expect(stats.phases['tools']).toBeGreaterThanOrEqual(0);
    expect(stats.phases['answer']).toBeGreaterThanOrEqual(0);
    const event = turn.events.find((e) => e.type === 'stats');
    expect(event?.type).toBe('stats');
    expect(turn.view.footer?.length).toBeGreaterThan(0);
    expect(turn.view.stats).toEqual(stats);
    expect((result.trace as AgentTrace).tokenUsage.totalTokens).toBe(520);
  });

  it('stops on an LLM error with a friendly message suggesting chat mode, without switching', async () => {
    fakes.llm.enqueue({ status: 500, body: openAIErrorBody('boom', 'server_error') });
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({ text: 'Hello?', llm: { tool: llm }, env: fakes.env });
    const result = await createAgentExecutor({ function_call_llm: llm, ...limits }).run(turn.ctx);

    expect(turn.view.error).toContain('/mode chat');
    expect(turn.ctx.settings.mode).toBe('agent');
    expect(result.answer).toBe('');
    expect((result.trace as AgentTrace).finishReason).toBe('error');
    expect((result.trace as AgentTrace).errors[0]).toContain('LlmError');
  });

  it('stops at the tool-call limit and honours a custom evaluator', async () => {
    fakes.llm.fallback = (body) =>
      body.tools
        ? toolCallReply([
            { name: 'web_search', arguments: { query: `a${body.messages.length}` } },
            { name: 'web_search', arguments: { query: `b${body.messages.length}` } },
          ])
        : textReply('ok');
    const llm = fakes.client('tool-model');
    const byCount = makeTurnContext({ text: 'Q', llm: { tool: llm }, env: fakes.env });
    const counted = await createAgentExecutor({ function_call_llm: llm, ...limits, maxToolCalls: 3 }).run(
      byCount.ctx,
    );
    expect(fakes.search.requests).toHaveLength(4);
    expect((counted.trace as AgentTrace).finishReason).toBe('max_tool_calls');
    expect(stepsOf(byCount.view, 'evaluation').at(-1)?.body).toContain('tool-call limit (3)');

    const custom = makeTurnContext({ text: 'Q', llm: { tool: llm }, env: fakes.env, sessionKey: 'other' });
    const seen: number[] = [];
    const judged = await createAgentExecutor({
      function_call_llm: llm,
      ...limits,
      evaluator: (results, state) => {
        seen.push(results.length);
        return state.iteration >= 2
          ? { decision: 'stop', reason: 'Custom: enough' }
          : { decision: 'continue', reason: 'Custom: more' };
      },
    }).run(custom.ctx);
    expect(seen).toEqual([2, 2]);
    expect((judged.trace as AgentTrace).finishReason).toBe('custom');
    expect(stepsOf(custom.view, 'evaluation').map((s) => s.body)).toEqual(['Custom: more', 'Custom: enough']);
  });

  it('runAgent takes models and limits from the context, and speaks Chinese', async () => {
    fakes.llm.enqueue(textReply('不需要搜索。'), textReply('你好！'));
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({ text: '你好', llm: { tool: llm }, env: fakes.env, locale: 'zh' });
    const result = await runAgent(turn.ctx);
    expect(result.answer).toBe('你好！');
    expect(fakes.llm.requests[0]!.body.tools).toHaveLength(1);
    expect(stepsOf(turn.view, 'model-switch')).toHaveLength(0);
    expect(turn.view.phase).toBe('✍️ openai/tool-model');
    expect(fakes.llm.requests[1]!.body.messages[0].content).toContain('Simplified Chinese');
  });

  it('AGENT_VERBOSE logs every thought, action, tool input and output', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => lines.push(line) },
    });
    fakes.llm.enqueue(
      toolCallReply([{ name: 'web_search', arguments: { query: 'verbose query' } }], {
        text: 'Let me look.',
      }),
      textReply('Got it.'),
      textReply('Answer.'),
    );
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({
      text: 'Q',
      llm: { tool: llm },
      env: { ...fakes.env, AGENT_VERBOSE: 'true' },
      logger,
    });
    await runAgent(turn.ctx);
    const records = lines.map(
      (l) => JSON.parse(l) as { msg: string; thought?: string; input?: string; output?: string },
    );
    expect(records.find((r) => r.msg === 'agent thought')?.thought).toBe('Let me look.');
    expect(records.find((r) => r.msg === 'agent action')?.input).toBe('{"query":"verbose query"}');
    expect(records.find((r) => r.msg === 'agent observation')?.output).toContain(
      'Result 1 for verbose query',
    );
    expect(records.some((r) => r.msg === 'agent final answer')).toBe(true);
    expect(lines.join('\n')).not.toContain('sk-test');
  });

  it('Stop cancels the run without an answer or an error', async () => {
    fakes.llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'x' } }], { delayMs: 2_000 }));
    const llm = fakes.client('tool-model');
    const turn = makeTurnContext({ text: 'Q', llm: { tool: llm }, env: fakes.env });
    const running = createAgentExecutor({ function_call_llm: llm, ...limits }).run(turn.ctx);
    // Stop pressed while the model is thinking: once its request has arrived, not at a set time.
    await expect.poll(() => fakes.llm.requests.length).toBe(1);
    turn.abort.abort();
    const result = await running;
    expect(result.answer).toBe('');
    expect(turn.view.error).toBeUndefined();
    expect((result.trace as AgentTrace).finishReason).toBe('cancelled');
    expect(fakes.llm.requests).toHaveLength(1);
  });
});
