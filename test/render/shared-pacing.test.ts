/**
 * Issue 58 item 3: pacing shared by several instances. Two `ChannelPacers` stand for two Scout
 * instances on one store (a `MemoryPaceBudget` on one manual clock; the Redis budget is the same
 * arithmetic, tested against a real Redis in test/scale/scale-pacing.e2e.test.ts): together they
 * keep to ONE window, urgent writes still go first, and a budget that fails never holds a write.
 */
import { describe, expect, it } from 'vitest';
import { ChannelPacers, type SharedPacing } from '../../src/render/channel-pacer.js';
import { MemoryPaceBudget, resilientBudget, type SharedPaceBudget } from '../../src/render/pace-budget.js';
import type { ChannelLimits } from '../../src/render/pace-rules.js';
import { type ManualClock, manualClock } from './manual-clock.js';
import { mostInWindow } from '../helpers/channel-limits.js';

/** Slack's Tier 3 as Scout declares it (adapters/slack/turn-sink.ts), per workspace. */
const TIER_3: ChannelLimits = {
  edit: [
    { max: 50, perMs: 60_000, reserve: 10 },
    { burst: 5, everyMs: 1_200, ordinaryOnly: true },
  ],
};

/** `count` edits through `pacers` in workspace T1, every 5th urgent; resolves with their start times. */
function edits(clock: ManualClock, pacers: ChannelPacers, count: number, starts: number[]) {
  const pace = pacers.channel('T1', TIER_3);
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      pace.run(
        'edit',
        async () => {
          starts.push(clock.now());
          await new Promise<void>((resolve) => clock.setTimeout(resolve, 50));
        },
        i % 5 === 0,
      ),
    ),
  );
}

const shared = (budget: SharedPaceBudget): SharedPacing => ({
  budget,
  key: (team, kind) => `slack:${team}:${kind}`,
});

describe('shared pacing (two instances, one workspace window)', () => {
  it('two instances alone take a window each: twice what the workspace allows', async () => {
    const clock = manualClock();
    const starts: number[] = [];
    const [a, b] = [new ChannelPacers(clock), new ChannelPacers(clock)];
    await clock.until(Promise.all([edits(clock, a, 60, starts), edits(clock, b, 60, starts)]));
    // What issue 58 saw: each instance keeps to 50 a minute, together they make about 100.
    expect(mostInWindow(starts, 60_000)).toBeGreaterThan(50);
  });

  it('two instances on one budget keep to the one window together, and each still gets its turn', async () => {
    const clock = manualClock();
    const budget = new MemoryPaceBudget(clock);
    const starts: number[] = [];
    const [a, b] = [new ChannelPacers(clock, shared(budget)), new ChannelPacers(clock, shared(budget))];
    const startsA: number[] = [];
    const startsB: number[] = [];
    await clock.until(Promise.all([edits(clock, a, 60, startsA), edits(clock, b, 60, startsB)]));
    starts.push(...startsA, ...startsB);
    expect(starts).toHaveLength(120);
    expect(mostInWindow(starts, 60_000)).toBeLessThanOrEqual(50);
    // Neither instance starves: both wrote within the first minute.
    expect(startsA.filter((t) => t < 60_000).length).toBeGreaterThan(10);
    expect(startsB.filter((t) => t < 60_000).length).toBeGreaterThan(10);
  });

  it('ordinary writes leave the reserve to urgent ones in the shared window too', async () => {
    const clock = manualClock();
    const budget = new MemoryPaceBudget(clock);
    const a = new ChannelPacers(clock, shared(budget)).channel('T1', {
      edit: [{ max: 10, perMs: 60_000, reserve: 3 }],
    });
    const b = new ChannelPacers(clock, shared(budget)).channel('T1', {
      edit: [{ max: 10, perMs: 60_000, reserve: 3 }],
    });
    const order: string[] = [];
    const write = (name: string) => async () => {
      order.push(name);
    };
    // Instance A fills what ordinary writes may use (7 of 10); B's ordinary write must wait, B's
    // urgent ones (a final) go at once.
    const ordinaryA = Array.from({ length: 8 }, (_, i) => a.run('edit', write(`a${i}`)));
    await clock.advance(10);
    expect(order).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    const urgentB = Promise.all([
      b.run('edit', write('B-final1'), true),
      b.run('edit', write('B-final2'), true),
    ]);
    await clock.advance(10);
    expect(order.slice(7)).toEqual(['B-final1', 'B-final2']);
    await clock.until(Promise.all([...ordinaryA, urgentB]));
    expect(order.at(-1)).toBe('a7');
  });

  it('a budget that fails (the store unreachable) never holds a write: local pacing, logged once', async () => {
    const clock = manualClock();
    const outages: unknown[] = [];
    let calls = 0;
    const failing: SharedPaceBudget = {
      take: async () => {
        calls++;
        throw new Error('The client is offline');
      },
    };
    const budget = resilientBudget(failing, {
      clock,
      onOutage: (err) => outages.push(err),
      retryAfterMs: 5_000,
    });
    const pacers = new ChannelPacers(clock, shared(budget));
    const starts: number[] = [];
    await clock.until(edits(clock, pacers, 20, starts));
    expect(starts).toHaveLength(20);
    // The local pacer alone: its burst of 5, then one per 1.2 s (urgent ones as they come).
    expect(mostInWindow(starts, 60_000)).toBeLessThanOrEqual(50);
    expect(outages).toHaveLength(1);
    // After a failure the store is left alone a while, not asked before every write.
    expect(calls).toBeLessThan(20);
  });

  it('a budget that does not answer is given up after its timeout: the write goes', async () => {
    const clock = manualClock();
    const outages: unknown[] = [];
    const hanging: SharedPaceBudget = { take: () => new Promise(() => {}) };
    const budget = resilientBudget(hanging, {
      clock,
      onOutage: (err) => outages.push(err),
      timeoutMs: 1_000,
    });
    const pace = new ChannelPacers(clock, shared(budget)).channel('T1', TIER_3);
    let wroteAt: number | undefined;
    await clock.until(
      pace.run('edit', async () => {
        wroteAt = clock.now();
      }),
    );
    expect(wroteAt).toBe(1_000);
    expect(outages).toHaveLength(1);
  });

  it('Discord: one global window for every channel of the bot', async () => {
    const clock = manualClock();
    const budget = new MemoryPaceBudget(clock);
    const global: SharedPacing = {
      budget,
      key: () => 'discord:bot:global',
      windows: [{ max: 45, perMs: 1_000 }],
    };
    const perChannel: ChannelLimits = { post: [{ max: 5, perMs: 5_000 }] };
    const [a, b] = [new ChannelPacers(clock, global), new ChannelPacers(clock, global)];
    const starts: number[] = [];
    const write = async () => {
      starts.push(clock.now());
    };
    // 30 channels on each instance, 3 posts each: 180 posts, far more than 45 a second.
    const all = [a, b].flatMap((pacers) =>
      Array.from({ length: 30 }, (_, c) => {
        const pace = pacers.channel(`C${c}`, perChannel);
        return Promise.all([0, 1, 2].map(() => pace.run('post', write, true)));
      }),
    );
    await clock.until(Promise.all(all));
    expect(starts).toHaveLength(180);
    expect(mostInWindow(starts, 1_000)).toBeLessThanOrEqual(45);
  });
});

describe('answers finish in arrival order (issue 58 item 2)', () => {
  const WINDOW: ChannelLimits = { edit: [{ max: 10, perMs: 60_000, reserve: 2, perTurn: 3 }] };

  it('older turns still streaming do not hold a later turn’s intermediate edits', async () => {
    const clock = manualClock();
    const pacers = new ChannelPacers(clock);
    const first = pacers.channel('T1', WINDOW);
    const second = pacers.channel('T1', WINDOW);
    const third = pacers.channel('T1', WINDOW);
    const order: string[] = [];
    const write = (name: string) => async () => {
      order.push(name);
    };
    // Neither older turn has its answer yet: the third turn's frame goes as the window allows,
    // at once (50 answers at once would otherwise go one window's share at a time).
    await clock.until(Promise.all([0, 1, 2, 3].map((i) => first.run('edit', write(`first${i}`)))));
    await clock.until(second.run('edit', write('second')));
    await clock.until(third.run('edit', write('third')));
    expect(order.at(-1)).toBe('third');
    expect(clock.now()).toBeLessThan(1_000);
  });

  it('a later turn’s intermediate edits leave room for older turns writing their final state, and go once they ended', async () => {
    const clock = manualClock();
    const pacers = new ChannelPacers(clock);
    const first = pacers.channel('T1', WINDOW);
    const second = pacers.channel('T1', WINDOW);
    const third = pacers.channel('T1', WINDOW);
    // Both older answers are complete: their final states are being written.
    first.finishing?.();
    second.finishing?.();
    const order: string[] = [];
    const write = (name: string) => async () => {
      order.push(name);
    };
    // The first turn takes 4 units: 6 are left. The third turn has two older turns running: it
    // leaves them 3 each (and the reserve), so its frames wait; the second's leave 3 and go.
    await clock.until(Promise.all([0, 1, 2, 3].map((i) => first.run('edit', write(`first${i}`)))));
    const thirdFrame = third.run('edit', write('third'));
    await clock.advance(10);
    expect(order).not.toContain('third');
    await clock.until(second.run('edit', write('second')));
    expect(order.at(-1)).toBe('second');
    expect(order).not.toContain('third');
    // The older turns end: the third turn's frame goes at once, not a minute later.
    first.end?.();
    second.end?.();
    await clock.advance(10);
    expect(order.at(-1)).toBe('third');
    expect(clock.now()).toBeLessThan(1_000);
    await thirdFrame;
  });

  it('urgent writes go by arrival: the older turn’s final before a later turn’s, whoever asked first', async () => {
    const clock = manualClock();
    const pacers = new ChannelPacers(clock);
    const limits: ChannelLimits = { edit: [{ max: 1, perMs: 1_000 }] };
    const older = pacers.channel('T1', limits);
    await clock.advance(5);
    const later = pacers.channel('T1', limits);
    const order: string[] = [];
    const write = (name: string) => async () => {
      order.push(name);
    };
    // The window is full; the later turn asks for its final first.
    await clock.until(older.run('edit', write('frame')));
    const finals = [later.run('edit', write('later-final'), true)];
    await clock.advance(1);
    finals.push(older.run('edit', write('older-final'), true));
    await clock.until(Promise.all(finals));
    expect(order).toEqual(['frame', 'older-final', 'later-final']);
  });
});
