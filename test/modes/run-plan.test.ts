import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { AgentTrace } from '../../src/modes/turn/agent-trace.js';
import { parsePlan } from '../../src/modes/plan/request-plan.js';
import { say } from '../../src/i18n/say.js';
import { joinText } from '../../src/i18n/phrase.js';
import { createPlanRunner, runPlan } from '../../src/modes/plan/run-plan.js';
import type { PlanProposal } from '../../src/modes/plan/plan-types.js';
import { planLinesForModel, planStepTitle } from '../../src/modes/plan/run-plan-steps.js';
import type { Tool } from '../../src/tools/types.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { makeTurnContext, stepsOf } from './make-turn-context.js';
import { requestedModels, useModeFakes } from './mode-fakes.js';
import { scriptedDeadlines } from './scripted-deadlines.js';

const fakes = useModeFakes();

/** A tool that records when it ran and fails when asked to. */
function noteTool(log: string[]): Tool<{ note: string; fail?: boolean }> {
  return {
    name: 'note',
    description: 'Writes a note',
    inputSchema: z.object({ note: z.string(), fail: z.boolean().optional() }),
    run: async ({ note, fail }) => {
      log.push(note);
      if (fail) throw new Error(`note ${note} exploded`);
      return { text: `noted: ${note}` };
    },
  };
}

const planJson = (
  steps: Array<{ tool: string; parameters: Record<string, unknown>; description?: string }>,
) =>
  JSON.stringify({
    steps: steps.map((s, i) => ({ step: i + 1, description: s.description ?? `step ${i + 1}`, ...s })),
  });

describe('plan mode over real HTTP', () => {
  it('runs a three-step plan in order and the summary cites results of two steps', async () => {
    const log: string[] = [];
    fakes.llm.enqueue(
      textReply(
        planJson([
          { tool: 'web_search', parameters: { query: 'solar capacity 2025' } },
          { tool: 'web_search', parameters: { query: 'wind capacity 2025' } },
          { tool: 'note', parameters: { note: 'third' } },
        ]),
      ),
      textReply('Solar grew [1] and wind grew [6].'),
    );
    const tool = fakes.client('planner-model');
    const answer = fakes.client('answer-model');
    const turn = makeTurnContext({
      text: 'Compare solar and wind',
      llm: { tool, answer },
      env: fakes.env,
      tools: [noteTool(log) as Tool],
    });
    const result = await runPlan(turn.ctx);

    expect(requestedModels(fakes)).toEqual(['planner-model', 'answer-model']);
    const planner = fakes.llm.requests[0]!.body;
    // Structured output: the schema names the registered tools, so a constrained server cannot invent one.
    expect(planner.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'plan' } });
    const toolEnum = planner.response_format.json_schema.schema.properties.steps.items.properties.tool.enum;
    expect(toolEnum).toEqual(expect.arrayContaining(['web_search', 'note']));
    expect(planner.messages[0].content).toContain('- note: Writes a note');
    expect(fakes.search.requests.map((r) => r.query)).toEqual(['solar capacity 2025', 'wind capacity 2025']);
    expect(log).toEqual(['third']);

    const plan = stepsOf(turn.view, 'plan')[0];
    expect(plan?.body).toContain('1. step 1 (web_search)');
    expect(plan?.collapsed).toBe(false);
    expect(stepsOf(turn.view, 'plan-step').map((s) => s.status)).toEqual(['done', 'done', 'done']);
    expect(result.answer).toContain('[[1]](https://example.com/solar-capacity-2025/1)');
    expect(result.answer).toContain('[[6]](https://example.com/wind-capacity-2025/1)');
    expect(result.answer).toContain('**References**');
    const summaryPrompt = fakes.llm.requests[1]!.body.messages.at(-1).content as string;
    expect(summaryPrompt).toContain('noted: third');

    expect(result.stats?.models.map((m) => [m.role, m.label, m.calls])).toEqual([
      ['planner', 'openai/planner-model', 1],
      ['answer', 'openai/answer-model', 1],
    ]);
    expect(result.stats?.toolCalls).toBe(3);
    const trace = result.trace as AgentTrace;
    expect(trace.mode).toBe('plan');
    expect(trace.finishReason).toBe('plan_completed');
    expect(trace.steps.map((s) => s.action?.tool)).toEqual(['web_search', 'web_search', 'note', undefined]);
  });

  it('repairs an invalid plan once by sending the problem back', async () => {
    fakes.llm.enqueue(
      textReply('Sure! Here is my plan: step one, search.'),
      textReply(planJson([{ tool: 'web_search', parameters: { query: 'fixed plan' } }])),
      textReply('Done [1].'),
    );
    const llm = fakes.client('planner-model');
    const turn = makeTurnContext({ text: 'Plan it', llm: { tool: llm }, env: fakes.env });
    const result = await runPlan(turn.ctx);

    const repair = fakes.llm.requests[1]!.body.messages;
    expect(repair.at(-2)).toMatchObject({
      role: 'assistant',
      content: 'Sure! Here is my plan: step one, search.',
    });
    expect(repair.at(-1).content).toContain('no JSON object');
    expect(fakes.search.requests.map((r) => r.query)).toEqual(['fixed plan']);
    expect(result.answer).toContain('Done');
    expect((result.trace as AgentTrace).errors).toEqual(['invalid plan: the answer contains no JSON object']);
  });

  it('rejects a plan naming an unknown tool after one repair', async () => {
    const bad = textReply(planJson([{ tool: 'teleport', parameters: { to: 'mars' } }]));
    fakes.llm.enqueue(bad, bad);
    const llm = fakes.client('planner-model');
    const turn = makeTurnContext({ text: 'Go to Mars', llm: { tool: llm }, env: fakes.env });
    const result = await runPlan(turn.ctx);

    expect(fakes.llm.requests).toHaveLength(2);
    expect(fakes.llm.requests[1]!.body.messages.at(-1).content).toContain('unknown tool "teleport"');
    expect(turn.view.error).toContain('did not return a valid plan');
    expect(turn.view.error).toContain('teleport');
    expect(fakes.search.requests).toHaveLength(0);
    expect(result.answer).toBe('');
    expect((result.trace as AgentTrace).finishReason).toBe('plan_invalid');
  });

  it('asks DeepSeek, which has no json_schema, for JSON mode', async () => {
    fakes.llm.enqueue(
      textReply(planJson([{ tool: 'web_search', parameters: { query: 'q' } }])),
      textReply('Done [1].'),
    );
    const llm = fakes.client('deepseek-chat', 'deepseek');
    const turn = makeTurnContext({ text: 'q?', llm: { tool: llm }, env: fakes.env });
    await runPlan(turn.ctx);
    expect(fakes.llm.requests[0]!.body.response_format).toEqual({ type: 'json_object' });
  });

  it('a server that refuses json_schema gets one resend in JSON mode with the schema in the prompt', async () => {
    fakes.llm.enqueue(
      {
        status: 400,
        body: {
          error: { message: "Unsupported response_format type 'json_schema'", type: 'invalid_request_error' },
        },
      },
      textReply(planJson([{ tool: 'web_search', parameters: { query: 'q' } }])),
      textReply('Done [1].'),
    );
    const llm = fakes.client('local-model', 'openai-compatible');
    const turn = makeTurnContext({ text: 'q?', llm: { tool: llm }, env: fakes.env });
    const result = await runPlan(turn.ctx);
    const [first, second] = fakes.llm.requests.map((r) => r.body);
    expect(first.response_format.type).toBe('json_schema');
    expect(second.response_format).toEqual({ type: 'json_object' });
    expect(second.messages[0].content).toContain('JSON Schema');
    expect(result.answer).toContain('Done');
  });

  it('a plan cut at max_tokens is reported as cut, with the limit and how to raise it', async () => {
    fakes.llm.enqueue(textReply('{"steps":[{"step":1,"description":"look', { finishReason: 'length' }));
    const llm = fakes.client('planner-model');
    const turn = makeTurnContext({ text: 'q?', llm: { tool: llm }, env: fakes.env });
    const result = await runPlan(turn.ctx);
    expect(fakes.llm.requests).toHaveLength(1);
    expect(turn.view.error).toMatch(
      /cut at max_tokens=500 .*\/model tool openai\/planner-model max_tokens=1000/,
    );
    expect(turn.view.error).not.toMatch(/no JSON object|valid plan/);
    expect(result.answer).toBe('');
  });

  it('runs nothing when the user cancels the plan', async () => {
    fakes.llm.enqueue(textReply(planJson([{ tool: 'web_search', parameters: { query: 'x' } }])));
    const llm = fakes.client('planner-model');
    let shown: unknown;
    const turn = makeTurnContext({
      text: 'Plan',
      llm: { tool: llm },
      env: fakes.env,
      confirmPlan: async (plan) => {
        shown = plan;
        return false;
      },
    });
    const result = await runPlan(turn.ctx);

    expect(shown).toMatchObject({ steps: [{ step: 1, tool: 'web_search', parameters: { query: 'x' } }] });
    expect(fakes.search.requests).toHaveLength(0);
    expect(fakes.llm.requests).toHaveLength(1);
    expect(stepsOf(turn.view, 'notice')[0]?.title).toBe('Plan cancelled.');
    expect(stepsOf(turn.view, 'plan-step')).toHaveLength(0);
    expect(result.answer).toBe('');
  });

  it('the time spent waiting for Run/Cancel is not counted in the footer time', async () => {
    fakes.llm.enqueue(
      textReply(planJson([{ tool: 'note', parameters: { note: 'a' } }])),
      textReply('Summary.'),
    );
    const llm = fakes.client('planner-model');
    const WAIT_MS = 1_500;
    const turn = makeTurnContext({
      text: 'Plan',
      llm: { tool: llm },
      env: fakes.env,
      tools: [noteTool([]) as Tool],
      confirmPlan: async () => {
        await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
        return true;
      },
    });
    const started = Date.now();
    await runPlan(turn.ctx);
    const wall = Date.now() - started;
    expect(wall).toBeGreaterThanOrEqual(WAIT_MS);
    expect(turn.view.stats?.totalMs).toBeLessThanOrEqual(wall - WAIT_MS + 50);
  });

  it('skips a failing middle step by default and stops on it with PLAN_ON_STEP_ERROR=stop', async () => {
    const steps = [
      { tool: 'note', parameters: { note: 'one' } },
      { tool: 'note', parameters: { note: 'two', fail: true } },
      { tool: 'note', parameters: { note: 'three' } },
    ];
    const log: string[] = [];
    fakes.llm.enqueue(textReply(planJson(steps)), textReply('Summary after skipping.'));
    const llm = fakes.client('planner-model');
    const skip = makeTurnContext({ text: 'Notes', llm: { tool: llm }, tools: [noteTool(log) as Tool] });
    const skipped = await runPlan(skip.ctx);
    expect(log).toEqual(['one', 'two', 'three']);
    const skipSteps = stepsOf(skip.view, 'plan-step');
    expect(skipSteps.map((s) => s.status)).toEqual(['done', 'failed', 'done']);
    expect(skipSteps[1]?.body).toContain('note two exploded');
    expect(skipSteps[1]?.body).toContain('skipped');
    expect(skipped.answer).toBe('Summary after skipping.');

    log.length = 0;
    fakes.llm.enqueue(textReply(planJson(steps)), textReply('Summary of step one.'));
    const stop = makeTurnContext({
      text: 'Notes',
      llm: { tool: llm },
      tools: [noteTool(log) as Tool],
      env: { PLAN_ON_STEP_ERROR: 'stop' },
    });
    const stopped = await runPlan(stop.ctx);
    expect(log).toEqual(['one', 'two']);
    expect(stepsOf(stop.view, 'plan-step').map((s) => s.status)).toEqual(['done', 'failed', 'skipped']);
    expect(stepsOf(stop.view, 'warning')[0]?.title).toContain('Step 2 failed');
    expect(stopped.answer).toBe('Summary of step one.');
    expect((stopped.trace as AgentTrace).finishReason).toBe('plan_stopped');
  });

  it('aborts slow steps at the time limit and summarises what finished', async () => {
    // The limit passes on the script's clock while the second step runs, however slow the machine.
    const clock = scriptedDeadlines();
    const ranSteps: number[] = [];
    const slow: Tool<{ ms: number }> = {
      name: 'slow',
      description: 'Waits',
      inputSchema: z.object({ ms: z.number() }),
      run: (input, context) =>
        new Promise((resolve) => {
          ranSteps.push(input.ms);
          const timer = setTimeout(() => resolve({ text: `waited ${input.ms}` }), input.ms);
          context.signal.addEventListener('abort', () => clearTimeout(timer));
        }),
    };
    fakes.llm.enqueue(
      textReply(
        planJson([
          { tool: 'slow', parameters: { ms: 10 } },
          { tool: 'slow', parameters: { ms: 5_000 } },
        ]),
      ),
      textReply('Only the first step finished.'),
    );
    const llm = fakes.client('planner-model');
    const turn = makeTurnContext({ text: 'Wait', llm: { tool: llm }, tools: [slow as Tool] });
    const running = createPlanRunner({ maxExecutionMs: 400, clock })(turn.ctx);
    await vi.waitFor(() => expect(ranSteps).toEqual([10, 5_000]), { timeout: 15_000 });
    clock.advance(400);
    const result = await running;
    expect(clock.expired()).toBe(1);
    expect(stepsOf(turn.view, 'warning')[0]?.title).toContain('timed out');
    expect(fakes.llm.requests[1]!.body.messages.at(-1).content).toContain('waited 10');
    expect(result.answer).toBe('Only the first step finished.');
    expect((result.trace as AgentTrace).finishReason).toBe('timeout');
  });
});

describe('parsePlan', () => {
  const tools = { has: (name: string) => name === 'web_search' };
  it('accepts a fenced plan and orders steps by number', () => {
    const text =
      '```json\n{"steps":[{"step":2,"description":"b","tool":"web_search","parameters":{"query":"b"}},{"step":1,"description":"a","tool":"web_search"}]}\n```';
    const parsed = parsePlan(text, tools);
    expect('plan' in parsed && parsed.plan.steps.map((s) => [s.step, s.parameters])).toEqual([
      [1, {}],
      [2, { query: 'b' }],
    ]);
  });
  it('reports schema problems and unknown tools', () => {
    expect(parsePlan('{"steps":[]}', tools)).toMatchObject({ error: expect.stringContaining('schema') });
    expect(parsePlan('{"steps":[{"step":1,"description":"x","tool":"nope"}]}', tools)).toEqual({
      error: 'unknown tool "nope" (step 1)',
    });
  });
});

describe('the plan as the summary prompt reads it', () => {
  it('is the Plan step the user is shown, in the turn language', () => {
    const plan: PlanProposal = {
      steps: [
        { step: 1, tool: 'web_search', parameters: { query: 'q' }, description: 'Find it' },
        { step: 2, tool: 'note', parameters: { note: 'n' }, description: '记下来' },
      ],
    };
    for (const locale of ['en', 'zh'] as const) {
      expect(planLinesForModel(plan, locale)).toBe(
        say(locale, joinText(plan.steps.map(planStepTitle), '\n')),
      );
    }
    expect(planLinesForModel(plan, 'zh')).toBe('1. Find it（web_search）\n2. 记下来（note）');
  });
});
