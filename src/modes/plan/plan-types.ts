import * as z from '../../schema/zod.js';

/** One step of a plan, as the planner model must return it (seed 003). */
export const PlanStepSchema = z.object({
  step: z.number().check(z.int(), z.positive()),
  description: z.string().check(z.minLength(1)),
  tool: z.string().check(z.minLength(1)),
  parameters: z._default(z.record(z.string(), z.unknown()), {}),
});

export const PlanSchema = z.object({ steps: z.array(PlanStepSchema).check(z.minLength(1), z.maxLength(10)) });

export type PlanStep = z.infer<typeof PlanStepSchema>;
export type PlanProposal = z.infer<typeof PlanSchema>;

/**
 * The plan's JSON Schema for structured output, written out by hand in the subset every
 * grammar-constrained server converts (llama.cpp, vLLM): the tool names as an enum, so a
 * constrained planner cannot name a tool that does not exist.
 */
export function planJsonSchema(toolNames: string[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      steps: {
        type: 'array',
        minItems: 1,
        maxItems: 10,
        items: {
          type: 'object',
          properties: {
            step: { type: 'integer', minimum: 1 },
            description: { type: 'string' },
            tool: toolNames.length > 0 ? { type: 'string', enum: toolNames } : { type: 'string' },
            parameters: { type: 'object' },
          },
          required: ['step', 'description', 'tool', 'parameters'],
        },
      },
    },
    required: ['steps'],
  };
}
