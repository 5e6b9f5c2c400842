import { estimateCost, loadPriceTable, type PriceTable } from '../../llm/pricing.js';
import type { TurnStats } from '../../render/events.js';
import type { UsageTracker } from './usage-tracker.js';
import type { TurnContext } from '../types.js';

/** PRICE_TABLE is parsed once per distinct value, not on every turn. */
const tables = new Map<string, PriceTable>();

function priceTable(json: string | undefined): PriceTable {
  const key = json ?? '';
  let table = tables.get(key);
  if (!table) {
    table = loadPriceTable(json);
    tables.set(key, table);
  }
  return table;
}

/** Snapshots a turn's statistics with the estimated cost and emits them for the footer. */
export function finishStats(
  ctx: Pick<TurnContext, 'emit'> & { config?: Pick<TurnContext['config'], 'env'> },
  usage: UsageTracker,
): TurnStats {
  const table = priceTable(ctx.config?.env.PRICE_TABLE);
  // ModelStats carries every Usage bucket under the same names.
  const stats = usage.snapshot((model) => estimateCost(model.label, model, table));
  ctx.emit({ type: 'stats', stats });
  return stats;
}
