/**
 * The Discord surface reports its gateway to /readyz: not ready until the shard is, not ready while
 * it reconnects after a close, ready again once it resumed — with the reconnect counted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/ops/metrics.js';
import { Readiness } from '../../src/ops/readiness.js';
import { SurfaceConnection } from '../../src/ops/surface-connection.js';
import { type Kit, ScriptedCore, startKit } from './discord-test-kit.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

async function until(predicate: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('Discord gateway readiness', () => {
  it('is not ready before login and while a shard reconnects, ready once it is back', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const connection = new SurfaceConnection('discord', metrics);
    const readiness = new Readiness();
    readiness.register('discord', connection.check);
    kit = await startKit(new ScriptedCore(), { connection, start: false });
    expect((await readiness.evaluate()).failing).toEqual(['discord']);

    await kit.surface.start();
    expect(await readiness.evaluate()).toEqual({
      ok: true,
      failing: [],
      checks: { discord: { ok: true, detail: 'gateway connected' } },
    });

    // A resumable close (4000, unknown error): discord.js reconnects and resumes on its own.
    kit.fake.closeGateway(4000);
    // The shard went down (a gap, counted) …
    await until(async () =>
      (await metrics.render()).includes('scout_surface_connection_gaps_total{surface="discord"} 1'),
    );
    // … and comes back without a restart.
    await until(async () => (await readiness.evaluate()).ok);
    const text = await metrics.render();
    expect(text).toContain('scout_surface_reconnects_total{surface="discord"} 1');
    expect(text).toContain('scout_surface_ready{surface="discord"} 1');
  });
});
