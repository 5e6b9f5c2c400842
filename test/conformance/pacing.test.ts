/**
 * Per-channel pacing (issue 13: "overflow messages post in a burst, 4 in 4 ms"): the long cited
 * answers run through the real Slack (post + chat.update) and Discord surfaces against their strict
 * fakes, and the fakes' recorded call times must stay inside what the platform allows per channel
 * (shared/PLATFORMS.md), while the messages together still show the whole answer.
 *
 * The drivers run every surface on a shrunk time base (an edit interval of 40 ms / 20 ms instead of
 * Slack's and Discord's 1 s) so the suite stays fast; the platform's windows are shrunk by the same
 * factor here. The limits below are the platforms' (not the adapters' declared ones), so an adapter
 * that declared more than its platform allows fails here.
 */
import { afterEach, expect, it } from 'vitest';
import { EDIT_INTERVAL_MS as DISCORD_EDIT_INTERVAL_MS } from '../../adapters/discord/turn-sink.js';
import { EDIT_INTERVAL_MS as SLACK_EDIT_INTERVAL_MS } from '../../adapters/slack/turn-sink.js';
import { answerMarkdown } from '../../src/render/turn-markdown.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { describeWithShared } from '../helpers/fixtures.js';
import { contentOf } from '../render/markdown-samples.js';
import { DISCORD_TEST_EDIT_INTERVAL_MS, discordDriver } from './discord-driver.js';
import { SLACK_TEST_EDIT_INTERVAL_MS, slackClassicDriver } from './slack-classic-driver.js';
import { slackNativeDriver } from './slack-native-driver.js';
import {
  type SlackHarness,
  startSlackHarness,
  TEST_EDIT_INTERVAL_MS,
  threadFixture,
} from '../slack/slack-harness.js';
import type { SurfaceDriver, SurfaceWorld, WriteMethod } from './surface-driver.js';
import { citedAnswer, classify, type ScriptedTurn, TURNS } from './turns.js';

/**
 * What a platform allows one channel: for each write method, the most calls in any window of `perMs`
 * after a burst of `burst` (`burst + floor(T / perMs)` calls in any T ms), or a plain window
 * (`max` calls in any `perMs`).
 */
type Allowance =
  | { kind: 'rate'; burst: number; perMs: number }
  | { kind: 'window'; max: number; perMs: number };

interface PacedSurface {
  driver: SurfaceDriver;
  /** The driver's time base: real milliseconds per platform millisecond. */
  scale: number;
  allows: Partial<Record<WriteMethod, Allowance>>;
}

/** Slack: chat.postMessage ~1 per second per channel, short bursts allowed (a burst of 4 here). */
const SLACK_POST_BURST = 4;

const SURFACES: PacedSurface[] = [
  {
    driver: slackClassicDriver,
    scale: SLACK_TEST_EDIT_INTERVAL_MS / SLACK_EDIT_INTERVAL_MS,
    allows: { post: { kind: 'rate', burst: SLACK_POST_BURST, perMs: 1000 } },
  },
  {
    // Native streaming: the stream's own calls are not messages posted to the channel, its
    // overflow parts are.
    driver: slackNativeDriver,
    scale: SLACK_TEST_EDIT_INTERVAL_MS / SLACK_EDIT_INTERVAL_MS,
    allows: { post: { kind: 'rate', burst: SLACK_POST_BURST, perMs: 1000 } },
  },
  {
    driver: discordDriver,
    scale: DISCORD_TEST_EDIT_INTERVAL_MS / DISCORD_EDIT_INTERVAL_MS,
    // About 5 messages per 5 s per channel; edits and deletes have per-route buckets of the same size.
    allows: {
      post: { kind: 'window', max: 5, perMs: 5000 },
      edit: { kind: 'window', max: 5, perMs: 5000 },
      delete: { kind: 'window', max: 5, perMs: 5000 },
    },
  },
];

const STREAMED = TURNS.filter((turn) => /^cited answer of (15|40)k chars with/.test(turn.name));

/**
 * The same answers arriving at once (a model that does not stream, a retried call): every part of
 * the answer is ready at the same moment, which is when overflow messages used to go out in a burst.
 */
const AT_ONCE: ScriptedTurn[] = STREAMED.map((turn) => ({
  ...turn,
  name: `${turn.name}, arriving at once`,
  setup(world) {
    turn.setup(world);
    const chars = Number(/of (\d+)k/.exec(turn.name)![1]) * 1000;
    world.llm.fallback = () => textReply(citedAnswer(chars), { pieces: 2 });
  },
}));

const LONG_ANSWERS = [...STREAMED, ...AT_ONCE];

/** Every window of recorded call times that holds more calls than the allowance, described. */
function overLimit(times: number[], allowance: Allowance, scale: number): string[] {
  const sorted = [...times].sort((a, b) => a - b);
  const perMs = allowance.perMs * scale;
  const out: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i; j < sorted.length; j++) {
      const span = sorted[j]! - sorted[i]!;
      const calls = j - i + 1;
      const allowed =
        allowance.kind === 'rate'
          ? allowance.burst + Math.floor(span / perMs)
          : span < perMs
            ? allowance.max
            : Number.POSITIVE_INFINITY;
      if (calls > allowed) {
        out.push(`${calls} calls in ${(span / scale).toFixed(0)} platform ms (from call ${i})`);
        break; // one line per starting call is enough to read
      }
    }
  }
  return out.slice(0, 5);
}

describeWithShared('conformance: writes paced per channel as the platform allows', () => {
  let world: SurfaceWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  for (const surface of SURFACES) {
    for (const turn of LONG_ANSWERS) {
      it(`${surface.driver.name}: ${turn.name}`, async () => {
        world = await surface.driver.start(turn.env ? { env: turn.env } : {});
        const w = world;
        turn.setup(w);
        await w.ask(turn.prompt ?? 'what is new with scout?');
        await w.settled();

        const calls = w.calls().filter((call) => call.inConversation);
        for (const [method, allowance] of Object.entries(surface.allows) as [WriteMethod, Allowance][]) {
          const times = calls.filter((call) => call.method === method).map((call) => call.at);
          expect(
            overLimit(times, allowance, surface.scale),
            `${method} calls over the platform's pace`,
          ).toEqual([]);
        }
        // Paced, not dropped: the messages together still show the whole final answer.
        const answer = classify(w.messages(), () => false).answer;
        const expected = answerMarkdown(w.finalView!);
        const shown = answer.map((m) => m.text).join('\n');
        const strip = (markdown: string) => contentOf(markdown).replace(/\u200B/g, '');
        expect(strip(shown), 'the messages together equal the final answer').toBe(strip(expected));
        expect(answer.length).toBeGreaterThan(1);
      }, 60_000);
    }
  }
});

describeWithShared('pacing: turns in one channel share its pace', () => {
  let s: SlackHarness | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('slack: two long answers at once in two threads of one channel stay within its post rate', async () => {
    s = await startSlackHarness();
    const harness = s;
    const fx = threadFixture();
    const channel = fx.mention.event.channel as string;
    const first = fx.mention.event.ts as string;
    const threads = [first, `${Number(first.split('.')[0]) + 1}.000200`];
    const answers = [citedAnswer(40_000, 1), citedAnswer(40_000, 2)];
    let next = 0;
    harness.h.llm.fallback = () => textReply(answers[next++ % 2]!, { pieces: 2 });
    await Promise.all(
      threads.map((ts) =>
        harness.event({
          ...fx.mention,
          event: {
            ...fx.mention.event,
            type: 'app_mention',
            ts,
            event_ts: ts,
            text: `<@${fx.botUserId}> tell me everything`,
          },
        }),
      ),
    );
    await harness.slack.waitFor(() => next === 2, 10_000, 'both turns to ask the model');
    await harness.surface.idle();

    const posts = harness.slack.calls.filter(
      (c) => c.method === 'chat.postMessage' && c.args.channel === channel,
    );
    expect(new Set(posts.map((c) => c.args.thread_ts))).toEqual(new Set(threads));
    const scale = TEST_EDIT_INTERVAL_MS / SLACK_EDIT_INTERVAL_MS;
    const rate: Allowance = { kind: 'rate', burst: SLACK_POST_BURST, perMs: 1000 };
    expect(
      overLimit(
        posts.map((c) => c.at),
        rate,
        scale,
      ),
      "posts over the channel's pace",
    ).toEqual([]);
    // Each thread still shows its whole answer.
    const strip = (markdown: string) => contentOf(markdown).replace(/\u200B/g, '');
    const shown = threads.map((ts) =>
      strip(
        harness.slack
          .messagesIn(channel, ts)
          .flatMap((m) => (m.blocks ?? []).filter((b: { type: string }) => b.type === 'markdown'))
          .map((b: { text: string }) => b.text)
          .join('\n'),
      ),
    );
    // Without sources the core drops the answers' [n] markers.
    const expected = answers.map((answer) => strip(answer.replace(/\[\d+\]/g, '')));
    expect(
      shown.map((text) => expected.indexOf(text)).sort(),
      'which answer each thread shows whole',
    ).toEqual([0, 1]);
  }, 60_000);
});
