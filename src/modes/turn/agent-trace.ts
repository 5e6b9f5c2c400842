/**
 * Seed 003's `AgentTrace`: a structured record of one agent or plan run, returned in
 * `TurnResult.trace` for logs and tests.
 */
import type { Usage } from '../../llm/types.js';

export type FinishReason =
  | 'answered' // the function-call model needed no (more) tools
  | 'sufficient' // the evaluation found the results sufficient
  | 'max_tool_calls'
  | 'max_iterations'
  | 'timeout'
  | 'loop' // repeated query / call, or a round with no new source
  | 'custom' // a custom evaluator stopped the loop
  | 'context_full' // the tool results fill the context window even with the oldest pages shortened
  | 'plan_completed'
  | 'plan_stopped'
  | 'plan_cancelled'
  | 'plan_invalid'
  | 'cancelled'
  | 'error';

export interface AgentAction {
  type: 'action' | 'final';
  tool?: string;
  args?: Record<string, unknown>;
}

export interface AgentStep {
  step: number;
  thought?: string;
  action?: AgentAction;
  observation?: string;
  /** Raw output of the tool (sources, cached flag). */
  toolOutput?: unknown;
  elapsedMs: number;
  timestamp: string;
  error?: string;
}

export interface ToolStats {
  count: number;
  totalMs: number;
  errors: number;
}

export interface AgentTrace {
  mode: 'agent' | 'plan';
  steps: AgentStep[];
  finalAnswer: string;
  finishReason: FinishReason;
  usedTools: Record<string, ToolStats>;
  tokenUsage: Usage & { totalTokens: number };
  totalMs: number;
  errors: string[];
}

export class TraceRecorder {
  readonly trace: AgentTrace;
  private readonly started = Date.now();

  constructor(mode: 'agent' | 'plan') {
    this.trace = {
      mode,
      steps: [],
      finalAnswer: '',
      finishReason: 'answered',
      usedTools: {},
      tokenUsage: { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0 },
      totalMs: 0,
      errors: [],
    };
  }

  addStep(step: Omit<AgentStep, 'step' | 'timestamp'>): AgentStep {
    const full: AgentStep = {
      step: this.trace.steps.length + 1,
      timestamp: new Date().toISOString(),
      ...step,
    };
    this.trace.steps.push(full);
    return full;
  }

  recordTool(name: string, ms: number, failed: boolean): void {
    const stats = this.trace.usedTools[name] ?? { count: 0, totalMs: 0, errors: 0 };
    this.trace.usedTools[name] = stats;
    stats.count += 1;
    stats.totalMs += ms;
    if (failed) stats.errors += 1;
  }

  error(message: string): void {
    this.trace.errors.push(message);
  }

  finish(reason: FinishReason, answer: string, usage: Usage & { totalTokens: number }): AgentTrace {
    this.trace.finishReason = reason;
    this.trace.finalAnswer = answer;
    this.trace.tokenUsage = usage;
    this.trace.totalMs = Date.now() - this.started;
    return this.trace;
  }
}

/** Parses tool-call arguments for the trace; invalid JSON is kept as `{ raw }`. */
export function parseArgs(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw || '{}');
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value };
  } catch {
    return { raw };
  }
}
