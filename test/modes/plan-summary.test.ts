/**
 * Plan mode's summary (seed 003 "Summary Prompt"): the answer model gets the summary prompt, the
 * plan with each step's outcome and the results; with a separate answer model the switch is shown.
 */
import { emptyView, foldEvent } from '../../src/render/view.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runPlan } from '../../src/modes/plan/run-plan.js';
import type { Tool } from '../../src/tools/types.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { makeTurnContext, stepsOf } from './make-turn-context.js';
import { useModeFakes } from './mode-fakes.js';

const fakes = useModeFakes();

const failing: Tool<{ note: string }> = {
  name: 'note',
  description: 'Writes a note',
  inputSchema: z.object({ note: z.string() }),
  run: async () => {
    throw new Error('disk full');
  },
};

describe('plan summary', () => {
  it('uses the summary prompt, tells the model which steps failed, and shows the model switch', async () => {
    fakes.llm.enqueue(
      textReply(
        JSON.stringify({
          steps: [
            {
              step: 1,
              description: 'Find wind capacity',
              tool: 'web_search',
              parameters: { query: 'wind 2025' },
            },
            { step: 2, description: 'Save a note', tool: 'note', parameters: { note: 'x' } },
          ],
        }),
      ),
      textReply('Wind grew [1]; the note could not be saved.'),
    );
    const tool = fakes.client('planner-model');
    const answer = fakes.client('answer-model');
    const turn = makeTurnContext({
      text: 'How much wind power was added?',
      llm: { tool, answer },
      env: fakes.env,
      tools: [failing as Tool],
    });
    const result = await runPlan(turn.ctx);

    const summary = fakes.llm.requests[1]!.body;
    expect(summary.messages[0].content).toContain('summarising the results of a plan');
    const user = summary.messages.at(-1).content as string;
    expect(user).toContain('Question: How much wind power was added?');
    expect(user).toContain(
      'The plan that ran:\n1. Find wind capacity (web_search) — done\n2. Save a note (note) — failed',
    );
    expect(user).toContain('[1] Result 1 for wind 2025');

    const modelSwitch = stepsOf(turn.view, 'model-switch')[0];
    expect(modelSwitch?.body).toContain('The plan has run — switching to the answer model');
    expect(modelSwitch?.body).toContain('openai/planner-model → answer model: openai/answer-model');
    // What the steps message labels each phase with (the renderer adds the role's icon).
    const phases = turn.events.flatMap((e) =>
      e.type === 'phase' ? [foldEvent(emptyView(), e, 'en').phase] : [],
    );
    expect(phases).toEqual(['🗺️ openai/planner-model', '✍️ openai/answer-model']);
    expect(result.answer).toContain('**References**');
  });
});
