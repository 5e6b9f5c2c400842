import { estimateCost } from '../llm/pricing.js';
import type { TurnStats } from '../render/events.js';
import { formatStatsFooter } from '../render/format-stats.js';
import type { UsageTracker } from './agent/usage-tracker.js';
import type { TurnContext } from './types.js';

/** Snapshots a turn's statistics with the estimated cost and emits them for the footer. */
export function finishStats(ctx: Pick<TurnContext, 'emit' | 'locale'>, usage: UsageTracker): TurnStats {
  const stats = usage.snapshot((model) =>
    estimateCost(model.label, {
      inputTokens: model.inputTokens,
      outputTokens: model.outputTokens,
      reasoningTokens: model.reasoningTokens,
    }),
  );
  ctx.emit({ type: 'stats', stats, footer: formatStatsFooter(stats, ctx.locale) });
  return stats;
}
