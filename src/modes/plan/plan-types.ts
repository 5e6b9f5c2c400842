import { z } from 'zod';

/** One step of a plan, as the planner model must return it (seed 003). */
export const PlanStepSchema = z.object({
  step: z.number().int().positive(),
  description: z.string().min(1),
  tool: z.string().min(1),
  parameters: z.record(z.string(), z.unknown()).default({}),
});

export const PlanSchema = z.object({ steps: z.array(PlanStepSchema).min(1).max(10) });

export type PlanStep = z.infer<typeof PlanStepSchema>;
export type PlanProposal = z.infer<typeof PlanSchema>;
