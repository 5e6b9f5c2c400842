/**
 * Scenario 5: the same sequential agent turns on each store backend — what the store adds to a
 * turn's own work (history load and append, locks, dedupe, settings).
 */
import { type BenchContext, fakeSpeed, pct, type ScenarioResult, withScout } from '../context.js';
import { summarize } from '../metrics.js';
import { redisReachable, storeTarget } from '../store-targets.js';
import { runSequential } from '../turns.js';

export async function storeBackends(ctx: BenchContext): Promise<ScenarioResult> {
  const { options } = ctx;
  await ctx.fakes.configure(fakeSpeed(options, options.tokensPerSecond));
  const rows: Array<[string, string]> = [];
  const data: Record<string, unknown> = {};
  for (const name of ['memory', 'sqlite', 'redis'] as const) {
    if (name === 'redis' && !(await redisReachable(options.redisUrl))) {
      rows.push(['redis', `skipped: nothing answers at ${options.redisUrl}`]);
      data[name] = { skipped: `unreachable: ${options.redisUrl}` };
      continue;
    }
    const target = await storeTarget(name, options.redisUrl);
    ctx.log(`scenario 5: ${options.storeTurns} turns on ${name}`);
    try {
      const { turns } = await withScout(
        ctx,
        {
          storeUrl: target.url,
          ...(target.namespacePrefix ? { namespacePrefix: target.namespacePrefix } : {}),
        },
        (bench) => runSequential(bench, ctx.fakes, options.storeTurns),
      );
      const ok = turns.filter((t) => !t.error);
      const overhead = summarize(ok.map((t) => t.overheadMs));
      const own = summarize(ok.map((t) => t.ownMs));
      const cpu = summarize(ok.map((t) => t.cpuMs));
      rows.push([name, `own work ${pct(own, 2)} · CPU ${pct(cpu)} · errors ${turns.length - ok.length}`]);
      data[name] = { ownMs: own, overheadMs: overhead, cpuMs: cpu, errors: turns.length - ok.length };
    } finally {
      await target.cleanup();
    }
  }
  return {
    id: 5,
    name: `Store backends (${options.storeTurns} sequential turns each)`,
    rows,
    targets: [],
    data,
  };
}
