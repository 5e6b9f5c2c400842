import { estimateCost, loadPriceTable } from '../../llm/pricing.js';
import type { TurnStats } from '../../render/events.js';
import type { UsageTracker } from './usage-tracker.js';
import type { TurnContext } from '../types.js';

/** Snapshots a turn's statistics with the estimated cost and emits them for the footer. */
export function finishStats(
  ctx: Pick<TurnContext, 'emit'> & { config?: Pick<TurnContext['config'], 'env'> },
  usage: UsageTracker,
): TurnStats {
  // Parsed once per distinct value (loadPriceTable remembers it), not on every turn.
  const table = loadPriceTable(ctx.config?.env.PRICE_TABLE);
  // ModelStats carries every Usage bucket under the same names.
  const stats = usage.snapshot((model) => estimateCost(model.label, model, table));
  ctx.emit({ type: 'stats', stats });
  return stats;
}
