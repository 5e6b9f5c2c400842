import { describe, expect, it } from 'vitest';
import { ChannelPacer, ChannelPacers, type PaceSlot, scopedPace } from '../../src/render/channel-pacer.js';
import type { ChannelLimits } from '../../src/render/pace-rules.js';
import { LiveAnswer } from '../../src/render/live-answer.js';
import { ThrottledEditor } from '../../src/render/throttled-editor.js';
import { type ManualClock, manualClock } from './manual-clock.js';
import { mostInWindow } from '../helpers/channel-limits.js';

const DISCORD_LIKE: ChannelLimits = { post: [{ max: 5, perMs: 5000 }] };
const SLACK_LIKE: ChannelLimits = { post: [{ burst: 3, everyMs: 1000 }] };

/** A write that takes `latencyMs` and records when it started and ended. */
function recorder(clock: ManualClock, latencyMs = 0) {
  const writes: { name: string; start: number; end?: number }[] = [];
  const write = (name: string) => async () => {
    const entry: { name: string; start: number; end?: number } = { name, start: clock.now() };
    writes.push(entry);
    if (latencyMs > 0) await new Promise<void>((resolve) => clock.setTimeout(resolve, latencyMs));
    entry.end = clock.now();
    return name;
  };
  return { writes, write };
}

describe('ChannelPacer', () => {
  it('holds a window: 12 posts asked at once go 5 per 5 s, in order, none dropped', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer(DISCORD_LIKE, clock);
    const { writes, write } = recorder(clock, 200);
    const all = Promise.all(Array.from({ length: 12 }, (_, i) => pacer.run('post', write(`p${i}`), true)));
    expect(await clock.until(all)).toEqual(Array.from({ length: 12 }, (_, i) => `p${i}`));
    expect(writes.map((w) => w.name)).toEqual(Array.from({ length: 12 }, (_, i) => `p${i}`));
    expect(
      mostInWindow(
        writes.map((w) => w.start),
        5000,
      ),
    ).toBe(5);
    // Counted from when each write ended: the 6th starts 5 s after the 1st *ended*.
    expect(writes[5]!.start).toBe(writes[0]!.end! + 5000);
  });

  it('holds a rate: a burst of 3, then one per second', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer(SLACK_LIKE, clock);
    const { writes, write } = recorder(clock);
    await clock.until(
      Promise.all(Array.from({ length: 7 }, (_, i) => pacer.run('post', write(`p${i}`), true))),
    );
    expect(writes.map((w) => w.start)).toEqual([0, 0, 0, 1000, 2000, 3000, 4000]);
  });

  it('does not pace kinds the limits do not name', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer(SLACK_LIKE, clock);
    const { writes, write } = recorder(clock);
    await clock.until(Promise.all(Array.from({ length: 20 }, (_, i) => pacer.run('edit', write(`e${i}`)))));
    expect(new Set(writes.map((w) => w.start))).toEqual(new Set([0]));
  });

  it('keeps one slot for the final state: ordinary writes use 4 of 5, an urgent one goes at once', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer(DISCORD_LIKE, clock);
    const { writes, write } = recorder(clock);
    const frames = Array.from({ length: 6 }, (_, i) => pacer.run('post', write(`frame${i}`)));
    await clock.tick();
    expect(writes.map((w) => w.name)).toEqual(['frame0', 'frame1', 'frame2', 'frame3']);
    const final = pacer.run('post', write('final'), true);
    await clock.tick();
    expect(writes.at(-1)).toMatchObject({ name: 'final', start: 0 });
    await clock.until(Promise.all([final, ...frames]));
    expect(writes.slice(5).map((w) => w.name)).toEqual(['frame4', 'frame5']);
    expect(writes[5]!.start).toBe(5000);
  });

  it('hurry moves a waiting write ahead of ordinary ones; withdraw leaves without counting', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer({ post: [{ max: 1, perMs: 1000 }] }, clock);
    const first = await pacer.acquire('post').slot;
    const a = pacer.acquire('post');
    const b = pacer.acquire('post');
    const c = pacer.acquire('post');
    const order: string[] = [];
    for (const [name, request] of [
      ['a', a],
      ['b', b],
      ['c', c],
    ] as const)
      void request.slot.then((slot: PaceSlot) => {
        order.push(name);
        slot.done();
      });
    c.hurry();
    a.withdraw();
    first.done();
    await clock.until(Promise.all([b.slot, c.slot]));
    // a left without a slot (it ran at once, counting nothing); c was hurried past b.
    expect(order).toEqual(['a', 'c', 'b']);
    expect(clock.now()).toBe(2000);
  });
});

describe('ChannelPacers', () => {
  it('shares one pace per channel key, keeps others apart, and forgets idle channels', async () => {
    const clock = manualClock();
    const pacers = new ChannelPacers(clock);
    const { writes, write } = recorder(clock);
    const turnA = pacers.channel('C1', SLACK_LIKE);
    const turnB = pacers.channel('C1', SLACK_LIKE);
    const elsewhere = pacers.channel('C2', SLACK_LIKE);
    await clock.until(
      Promise.all([
        turnA.run('post', write('a1'), true),
        turnA.run('post', write('a2'), true),
        turnB.run('post', write('b1'), true),
        turnB.run('post', write('b2'), true),
        elsewhere.run('post', write('c1'), true),
        elsewhere.run('post', write('c2'), true),
      ]),
    );
    const at = Object.fromEntries(writes.map((w) => [w.name, w.start]));
    expect(at).toEqual({ a1: 0, a2: 0, b1: 0, b2: 1000, c1: 0, c2: 0 });
    expect(pacers.size).toBe(2);
    // A minute later both channels have nothing left to remember: the next use forgets them.
    await clock.advance(61_000);
    await pacers.channel('C3', SLACK_LIKE).run('post', write('d1'));
    expect(pacers.size).toBe(1);
  });
});

describe('paces wider than a channel (Slack: chat.update per workspace)', () => {
  /** Slack's chat.update as Scout paces it: 50 a minute, one per 1.2 s after a short burst. */
  const TIER_3: ChannelLimits = {
    edit: [
      { max: 50, perMs: 60_000 },
      { burst: 5, everyMs: 1_200 },
    ],
  };

  it('edits of turns in different channels share the workspace pace; posts stay per channel', async () => {
    const clock = manualClock();
    const channels = new ChannelPacers(clock);
    const workspaces = new ChannelPacers(clock);
    const { writes, write } = recorder(clock);
    const turn = (channel: string) =>
      scopedPace(channels.channel(channel, SLACK_LIKE), { edit: workspaces.channel('T1', TIER_3) });
    const turns = ['C1', 'C2', 'C3', 'C4'].map(turn);
    await clock.until(
      Promise.all(
        turns.flatMap((pace, t) => [
          pace.run('post', write(`post${t}`)),
          pace.run('edit', write(`edit${t}a`)),
          pace.run('edit', write(`edit${t}b`)),
        ]),
      ),
    );
    const starts = (prefix: string) => writes.filter((w) => w.name.startsWith(prefix)).map((w) => w.start);
    // Each channel posts at once: nothing else was written there.
    expect(starts('post')).toEqual([0, 0, 0, 0]);
    // Eight edits in four channels: four at once (one kept for a final), then one per 1.2 s.
    expect(starts('edit')).toEqual([0, 0, 0, 0, 1200, 2400, 3600, 4800]);
  });

  it('never more than 50 edits in a minute, however many turns keep asking', async () => {
    const clock = manualClock();
    const workspaces = new ChannelPacers(clock);
    const { writes, write } = recorder(clock, 150);
    const turns = Array.from({ length: 16 }, () => workspaces.channel('T1', TIER_3));
    const all = turns.flatMap((pace, t) =>
      Array.from({ length: 10 }, (_, i) => pace.run('edit', write(`t${t}e${i}`), i === 9)),
    );
    await clock.until(Promise.all(all));
    expect(writes).toHaveLength(160);
    expect(
      mostInWindow(
        writes.map((w) => w.start),
        60_000,
      ),
    ).toBeLessThanOrEqual(50);
  });

  it('finals may use all the room the minute has left; intermediate frames are spread over it', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer(
      {
        edit: [
          { max: 10, perMs: 60_000 },
          { burst: 2, everyMs: 6_000, ordinaryOnly: true },
        ],
      },
      clock,
    );
    const { writes, write } = recorder(clock);
    const frames = Array.from({ length: 4 }, (_, i) => pacer.run('edit', write(`frame${i}`)));
    await clock.advance(1_000);
    const finals = Array.from({ length: 6 }, (_, i) => pacer.run('edit', write(`final${i}`), true));
    await clock.until(Promise.all([...frames, ...finals]));
    const start = (name: string) => writes.find((w) => w.name === name)!.start;
    // One frame at once (one burst unit kept), the next when the spread allows it.
    expect(start('frame0')).toBe(0);
    // Six finals a second later, all at once: the minute had room, the spread does not hold them.
    expect(Array.from({ length: 6 }, (_, i) => start(`final${i}`))).toEqual([
      1000, 1000, 1000, 1000, 1000, 1000,
    ]);
    // The finals count toward the spread: the frames after them wait longer.
    expect(start('frame1')).toBeGreaterThan(6_000);
    expect(
      mostInWindow(
        writes.map((w) => w.start),
        60_000,
      ),
    ).toBeLessThanOrEqual(10);
  });

  it('a reserve: frames leave that much of the window to finals, which then go at once', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer({ edit: [{ max: 10, perMs: 60_000, reserve: 4 }] }, clock);
    const { writes, write } = recorder(clock);
    const frames = Array.from({ length: 10 }, (_, i) => pacer.run('edit', write(`frame${i}`)));
    await clock.advance(1_000);
    expect(writes.map((w) => w.name)).toEqual(Array.from({ length: 6 }, (_, i) => `frame${i}`));
    const finals = Array.from({ length: 4 }, (_, i) => pacer.run('edit', write(`final${i}`), true));
    await clock.tick();
    expect(writes.slice(6).map((w) => [w.name, w.start])).toEqual([
      ['final0', 1000],
      ['final1', 1000],
      ['final2', 1000],
      ['final3', 1000],
    ]);
    await clock.until(Promise.all([...frames, ...finals]));
    // The rest of the frames once the first ones left the window.
    expect(writes.slice(10).every((w) => w.start >= 60_000)).toBe(true);
  });

  it('finals go by turn: a turn that began finishing first lands all of its finals first', async () => {
    const clock = manualClock();
    const workspaces = new ChannelPacers(clock);
    const { writes, write } = recorder(clock);
    const limits: ChannelLimits = { edit: [{ burst: 1, everyMs: 1000 }] };
    const [a, b, c] = [0, 1, 2].map(() => workspaces.channel('T1', limits));
    // The workspace's one edit is taken; every turn now waits.
    const busy = a!.run('edit', write('busy'));
    const frame = c!.run('edit', write('c frame'));
    // Turn a starts finishing, then b, then a's second message asks for its final too.
    const finals = [a!.run('edit', write('a final 1'), true)];
    await clock.advance(10);
    finals.push(b!.run('edit', write('b final 1'), true), b!.run('edit', write('b final 2'), true));
    await clock.advance(10);
    finals.push(a!.run('edit', write('a final 2'), true));
    await clock.until(Promise.all([busy, frame, ...finals]));
    expect(writes.map((w) => w.name)).toEqual([
      'busy',
      'a final 1',
      'a final 2',
      'b final 1',
      'b final 2',
      'c frame',
    ]);
  });

  it('a turn that starts finishing hurries the writes it still has waiting: its last append goes before later turns’ frames', async () => {
    // Slack's appends (Tier 4) are ordinary writes: sixteen streams fill the window, and a turn
    // whose model ended still has its last append queued behind the others' frames. Its stop (and
    // so its final) waits on that append: once the turn is finishing, the append is urgent.
    const clock = manualClock();
    const workspaces = new ChannelPacers(clock);
    const { writes, write } = recorder(clock);
    // Two ordinary appends a second; a third unit is kept for urgent writes.
    const limits: ChannelLimits = { 'stream-append': [{ max: 3, perMs: 1000 }] };
    const [a, b, c] = [0, 1, 2].map(() => workspaces.channel('T1', limits));
    const busy = [a!.run('stream-append', write('a 1')), b!.run('stream-append', write('b 1'))];
    const frames = [
      c!.run('stream-append', write('c 2')),
      b!.run('stream-append', write('b 2')),
      a!.run('stream-append', write('a last')),
    ];
    await clock.advance(10);
    a!.finishing?.();
    await clock.until(Promise.all([...busy, ...frames]));
    expect(writes.map((w) => w.name)).toEqual(['a 1', 'b 1', 'a last', 'c 2', 'b 2']);
  });

  it('coalesces: a message waiting for the workspace sends its latest frame once, and its final before others’ frames', async () => {
    const clock = manualClock();
    const workspaces = new ChannelPacers(clock);
    const sent: string[] = [];
    const editor = (name: string) => {
      const pace = workspaces.channel('T1', { edit: [{ burst: 2, everyMs: 1000 }] });
      return new ThrottledEditor<string, string>({
        post: async () => name,
        edit: async (ref, p) => {
          sent.push(`${ref}: ${p}`);
        },
        intervalMs: 100,
        clock,
        pace: (call, urgent) => pace.acquire(call, urgent),
      });
    };
    const messages = ['m1', 'm2', 'm3', 'm4'].map(editor);
    for (const m of messages) {
      m.set('frame 0');
      await clock.until(m.settled());
    }
    // Forty frames for every message over 4 s: the workspace has room for about 5 edits.
    for (let i = 1; i <= 40; i++) {
      for (const m of messages) m.set(`frame ${i}`);
      await clock.advance(100);
    }
    messages[3]!.set('final');
    await clock.until(messages[3]!.flush());
    expect(sent.length).toBeLessThanOrEqual(6);
    // Every edit carried the latest frame of its message when it went, never an old one.
    const lastFrame = new Map<string, number>();
    for (const line of sent) {
      const [ref, frame] = line.split(': frame ');
      if (frame === undefined) continue;
      expect(Number(frame)).toBeGreaterThan(lastFrame.get(ref!) ?? 0);
      lastFrame.set(ref!, Number(frame));
    }
    expect(sent.at(-1)).toBe('m4: final');
    for (const m of messages) m.dispose();
  });
});

describe('pacing the editors', () => {
  it('reads the payload once the channel has room: what changed while waiting goes in one call', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer({ edit: [{ max: 1, perMs: 1000 }] }, clock);
    const sent: string[] = [];
    const editor = new ThrottledEditor<string, number>({
      post: async (p) => {
        sent.push(`post ${p}`);
        return 1;
      },
      edit: async (_ref, p) => {
        sent.push(`edit ${p}`);
      },
      intervalMs: 0,
      clock,
      pace: (call, urgent) => pacer.acquire(call, urgent),
    });
    // Another message of the channel just used the channel's one edit.
    await pacer.run('edit', async () => {});
    editor.set('a');
    await clock.until(editor.flush());
    editor.set('b');
    await clock.tick();
    editor.set('c');
    editor.set('d');
    await clock.until(editor.flush());
    expect(sent).toEqual(['post a', 'edit d']);
    expect(clock.now()).toBe(1000);
  });

  it('posts follow-up parts in order without deadlock when a post is rate limited', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer({ post: [{ max: 2, perMs: 1000 }] }, clock);
    const posted: string[] = [];
    let refused = false;
    const answer = new LiveAnswer<string, number>({
      post: async (p) => {
        // The second part's first post is rate limited: the parts after it must still land.
        if (p.startsWith('Part 1') && !refused) {
          refused = true;
          throw Object.assign(new Error('ratelimited'), { retryAfterMs: 1500 });
        }
        posted.push(p.slice(0, 6));
        return posted.length;
      },
      edit: async () => {},
      maxChars: 40,
      intervalMs: 100,
      clock,
      pace: (call, _index, urgent) => pacer.acquire(call, urgent),
    });
    const text = Array.from({ length: 6 }, (_, i) => `Part ${i} ${'x'.repeat(24)}`).join('\n\n');
    answer.set(text);
    await clock.until(answer.finish(text));
    expect(posted).toEqual(['Part 0', 'Part 1', 'Part 2', 'Part 3', 'Part 4', 'Part 5']);
  });

  it('sends the last part’s final (its closing controls) only after the parts before it landed', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer({ edit: [{ max: 5, perMs: 5000 }] }, clock);
    const edits: string[] = [];
    const answer = new LiveAnswer<string, number>({
      post: async () => 0,
      edit: async (_ref, p) => {
        edits.push(p);
      },
      maxChars: 40,
      intervalMs: 1000,
      clock,
      transform: (markdown, place) => (place.final && place.last ? `${markdown} [👍]` : markdown),
      pace: (call, _index, urgent) => pacer.acquire(call, urgent),
    });
    const text = (...cites: string[]) =>
      cites.map((cite, i) => `Part ${i} cites ${cite} ${'x'.repeat(18)}`).join('\n\n');
    answer.set(text('[1]', '[1]', '[1]'));
    await clock.advance(2000);
    // Part 1 was just edited: its next edit waits for its interval; part 2's may go at once.
    answer.set(text('[1]', '[2]', '[1]'));
    await clock.advance(50);
    await clock.until(answer.finish(text('[1](u)', '[2](u)', '[1](u)')));
    expect(edits.slice(-3)).toEqual([
      `${text('[1](u)')}`,
      `Part 1 cites [2](u) ${'x'.repeat(18)}`,
      `Part 2 cites [1](u) ${'x'.repeat(18)} [👍]`,
    ]);
  });
});

/** A Tier 3-like window (a few urgent edits a minute) with an ordinary-only rate on top. */
const TIER_3_LIKE: ChannelLimits = {
  edit: [
    { max: 5, perMs: 60_000, reserve: 2 },
    { burst: 2, everyMs: 1_200, ordinaryOnly: true },
  ],
};

describe('ChannelPacer.room', () => {
  it('counts what the window still allows urgent writes now: finished, in flight and waiting ones', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer(TIER_3_LIKE, clock);
    // The ordinary-only rate does not hold finals; a kind with no rule is unlimited.
    expect(pacer.room('edit')).toBe(5);
    expect(pacer.room('post')).toBe(Number.POSITIVE_INFINITY);
    await pacer.run('edit', async () => {}, true);
    await pacer.run('edit', async () => {}, true);
    expect(pacer.room('edit')).toBe(3);
    const held = await pacer.acquire('edit', true).slot;
    expect(pacer.room('edit')).toBe(2);
    await pacer.run('edit', async () => {}, true);
    await pacer.run('edit', async () => {}, true);
    expect(pacer.room('edit')).toBe(0);
    // A final waiting for the window is owed too: no room below zero.
    const waiting = pacer.acquire('edit', true);
    expect(pacer.room('edit')).toBe(0);
    held.done();
    await clock.advance(60_000);
    await waiting.slot.then((slot) => slot.done());
    expect(pacer.room('edit')).toBe(4);
  });

  it('a rate holding every write counts its bucket', async () => {
    const clock = manualClock();
    const pacer = new ChannelPacer({ edit: [{ burst: 3, everyMs: 1_000 }] }, clock);
    await pacer.run('edit', async () => {}, true);
    expect(pacer.room('edit')).toBe(2);
    await clock.advance(1_000);
    expect(pacer.room('edit')).toBe(3);
  });
});
