/**
 * Asks the planner model for a JSON plan (seed 003), validates it with PlanSchema and checks that
 * every step names a registered tool. An invalid answer is sent back once with the problem; a
 * second invalid answer is reported.
 */
import { LlmError, type LlmErrorDetails } from '../../errors.js';
import { sentMaxTokens } from '../../llm/model-config.js';
import { type ChatMessage, type LlmClient, ZERO_USAGE } from '../../llm/types.js';
import type { ToolRegistry } from '../../tools/types.js';
import type { UsageTracker } from '../turn/usage-tracker.js';
import { type PlanProposal, PlanSchema, planJsonSchema } from './plan-types.js';

/** The error for a plan that ran into max_tokens: reported as cut, with how to raise the limit. */
function cutPlan(llm: LlmClient): LlmError {
  const details: LlmErrorDetails = {
    provider: llm.config.provider,
    model: llm.config.model,
    modelSlot: 'tool',
  };
  const maxTokens = sentMaxTokens(llm.config);
  if (maxTokens !== undefined) details.maxTokens = maxTokens;
  return new LlmError('truncated', `${llm.label}: the plan was cut at the token limit`, details);
}

/** One repair round: a model that fails twice will not be saved by a third try, and each costs a call. */
const MAX_REPAIRS = 1;

export type ParsedPlan = { plan: PlanProposal } | { error: string };

/** Parses the planner's text: tolerates a Markdown code fence or prose around the JSON object. */
export function parsePlan(text: string, tools: Pick<ToolRegistry, 'has'>): ParsedPlan {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return { error: 'the answer contains no JSON object' };
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch (err) {
    return { error: `invalid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  const parsed = PlanSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'plan'}: ${i.message}`).join('; ');
    return { error: `the plan does not match the schema (${problems})` };
  }
  const unknown = parsed.data.steps
    .filter((s) => !tools.has(s.tool))
    .map((s) => `"${s.tool}" (step ${s.step})`);
  if (unknown.length > 0) return { error: `unknown tool ${unknown.join(', ')}` };
  // Steps run in the order given by their numbers, whatever order the JSON listed them in.
  return { plan: { steps: [...parsed.data.steps].sort((a, b) => a.step - b.step) } };
}

export interface RequestPlanInput {
  llm: LlmClient;
  messages: ChatMessage[];
  tools: ToolRegistry;
  signal: AbortSignal;
  tracker: UsageTracker;
}

export interface RequestPlanResult {
  plan?: PlanProposal;
  /** The last problem when no valid plan came back. */
  error?: string;
  attempts: number;
  /** Every problem found, in order (for the trace). */
  problems: string[];
}

export async function requestPlan(input: RequestPlanInput): Promise<RequestPlanResult> {
  const messages = [...input.messages];
  const problems: string[] = [];
  const names = input.tools.definitions().map((d) => d.name);
  const toolNames = names.join(', ');
  const jsonSchema = { name: 'plan', schema: planJsonSchema(names) };
  for (let attempt = 1; attempt <= 1 + MAX_REPAIRS; attempt++) {
    const started = Date.now();
    let text = '';
    let recorded = false;
    try {
      const response = await input.llm.complete({ messages, json: true, jsonSchema, signal: input.signal });
      input.tracker.recordCall(input.llm, 'planner', response.usage, Date.now() - started);
      recorded = true;
      text = response.text;
      // A plan cut at the token limit is incomplete JSON: say it was cut, not that it is malformed.
      if (response.finishReason === 'length') throw cutPlan(input.llm);
    } catch (err) {
      if (err instanceof LlmError) err.details.modelSlot ??= 'tool';
      if (!recorded) {
        // The tokens the provider reported before the failure still count.
        const usage = err instanceof LlmError ? err.details.usage : undefined;
        input.tracker.recordCall(input.llm, 'planner', usage ?? { ...ZERO_USAGE }, Date.now() - started);
      }
      throw err;
    }
    const parsed = parsePlan(text, input.tools);
    if ('plan' in parsed) return { plan: parsed.plan, attempts: attempt, problems };
    problems.push(parsed.error);
    messages.push(
      { role: 'assistant', content: text },
      {
        role: 'user',
        content: `That plan is not valid: ${parsed.error}. Reply with only the corrected JSON object {"steps": [{"step": 1, "description": "…", "tool": "…", "parameters": {…}}]}, using only these tools: ${toolNames}.`,
      },
    );
  }
  return { error: problems.at(-1) ?? 'invalid plan', attempts: 1 + MAX_REPAIRS, problems };
}
