/**
 * Collects per-model and per-phase statistics for one turn (seed 001): calls, input/output/
 * reasoning tokens and time for each model role, and how long each phase took.
 */
import type { LlmClient, Usage } from '../../llm/types.js';
import type { ModelStats, TurnStats } from '../../render/events.js';

export type ModelRole = ModelStats['role'];

export class UsageTracker {
  private readonly models = new Map<string, ModelStats>();
  private readonly phases: Record<string, number> = {};
  private readonly startedAt = Date.now();
  /** Time spent waiting for a person (the plan's Run/Cancel): not the turn's work, kept out of totalMs. */
  private waitedMs = 0;
  toolCalls = 0;
  searches = 0;

  /** Records one finished (or failed) model call. Usage may be partial when a call was aborted. */
  recordCall(llm: LlmClient, role: ModelRole, usage: Usage, ms: number): void {
    const key = `${role}\u0000${llm.label}`;
    let entry = this.models.get(key);
    if (!entry) {
      entry = {
        label: llm.label,
        role,
        calls: 0,
        inputTokens: 0,
        outputTokens: 0,
        reasoningTokens: 0,
        ms: 0,
      };
      this.models.set(key, entry);
    }
    entry.calls += 1;
    entry.inputTokens += usage.inputTokens;
    entry.outputTokens += usage.outputTokens;
    entry.reasoningTokens += usage.reasoningTokens;
    if (usage.cachedInputTokens)
      entry.cachedInputTokens = (entry.cachedInputTokens ?? 0) + usage.cachedInputTokens;
    if (usage.cacheWriteTokens)
      entry.cacheWriteTokens = (entry.cacheWriteTokens ?? 0) + usage.cacheWriteTokens;
    entry.ms += ms;
  }

  /** Adds wall time to a phase ("tools", "answer", "plan", "steps"). */
  addPhase(phase: string, ms: number): void {
    this.phases[phase] = (this.phases[phase] ?? 0) + ms;
  }

  /** Excludes time spent waiting for the user (a plan confirmation) from the footer's total time. */
  addUserWait(ms: number): void {
    this.waitedMs += ms;
  }

  /** Total usage over every call, for the trace. */
  totalUsage(): Usage & { totalTokens: number } {
    let inputTokens = 0;
    let outputTokens = 0;
    let reasoningTokens = 0;
    for (const m of this.models.values()) {
      inputTokens += m.inputTokens;
      outputTokens += m.outputTokens;
      reasoningTokens += m.reasoningTokens;
    }
    return { inputTokens, outputTokens, reasoningTokens, totalTokens: inputTokens + outputTokens };
  }

  /**
   * The statistics for the footer. `priceOf` returns the USD cost of one model's usage, or
   * undefined when the model has no price (then the whole cost is unknown rather than understated).
   */
  snapshot(priceOf?: (model: ModelStats) => number | undefined): TurnStats {
    const models = [...this.models.values()].map((m) => ({ ...m }));
    let costUsd: number | undefined;
    if (priceOf && models.length > 0) {
      costUsd = 0;
      for (const m of models) {
        const cost = priceOf(m);
        if (cost === undefined) {
          costUsd = undefined;
          break;
        }
        costUsd += cost;
      }
    }
    const stats: TurnStats = {
      models,
      phases: { ...this.phases },
      totalTokens: this.totalUsage().totalTokens,
      totalMs: Date.now() - this.startedAt - this.waitedMs,
      toolCalls: this.toolCalls,
      searches: this.searches,
    };
    if (costUsd !== undefined) stats.costUsd = costUsd;
    return stats;
  }
}
