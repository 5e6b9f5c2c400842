/**
 * Issue 29, `/usage` on every surface, through the real adapters and their loopback fakes: the
 * terminal prints a sparkline; Slack answers ephemerally and shows admins the report in App Home
 * (text: sparkline and top lists); Discord answers ephemerally with the chart as a PNG attachment.
 */
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { spendChartSvg } from '../../src/budget/usage-chart.js';
import { DAY_MS, type UsageIncrement, usageField } from '../../src/store/usage-counters.js';
import type { Stores } from '../../src/store/types.js';
import { describeWithShared } from '../helpers/fixtures.js';
import { pipedTerminalChat } from '../helpers/piped-terminal.js';
import { textReply } from '../helpers/fake-openai-server.js';
import type { UploadedFile } from '../helpers/fake-discord.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';
import {
  closeE2E,
  type E2E,
  finishedIn,
  fixtureMessage,
  meta,
  slashCommand,
  startE2E,
} from '../discord/discord-test-kit.js';
import { type SlackHarness, slashFixture, startSlackHarness, visibleText } from '../slack/slack-harness.js';

const PRICES = JSON.stringify({ 'openai/test-model': { input: 1000, output: 2000 } });
const today = () => Math.floor(Date.now() / DAY_MS);

/** Past days of usage for `user` in `channel`: $0.10 three days ago, $0.30 yesterday. */
async function seed(stores: Stores, user: string, channel: string): Promise<void> {
  const day = (d: number, usd: number) => {
    const inc: UsageIncrement[] = [
      { dim: 'u', field: usageField(user, 'usd'), by: usd },
      { dim: 'u', field: usageField(user, 'tokens'), by: usd * 10_000 },
      { dim: 'u', field: usageField(user, 'turns'), by: 1 },
      { dim: 'c', field: usageField(channel, 'usd'), by: usd },
      { dim: 'c', field: usageField(channel, 'turns'), by: 1 },
      { dim: 'm', field: usageField('openai/test-model', 'usd'), by: usd },
      { dim: 'm', field: usageField('openai/test-model', 'calls'), by: 2 },
      { dim: 't', field: usageField('web_search', 'calls'), by: 3 },
    ];
    return stores.usage.add(d, inc);
  };
  await day(today() - 3, 0.1);
  await day(today() - 1, 0.3);
}

describe('/usage in the terminal', () => {
  let h: TestScout | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('shows today, 7 and 30 days after real turns, with spend per day as a sparkline', async () => {
    h = await startTestScout({ env: { PRICE_TABLE: PRICES, BUDGET_USER_DAILY_USD: '5' } });
    h.llm.fallback = () => textReply('An answer.');
    const { printed, code } = await pipedTerminalChat(
      h,
      ['first question', 'second question', '/usage'],
      'console:usage',
    );
    expect(code).toBe(0);
    // Two turns at $0.02 each, today.
    expect(printed).toContain('Your usage');
    expect(printed).toMatch(/Today: \$0\.0400 · 30 tokens · 2 answers/);
    expect(printed).toMatch(/30 days: \$0\.0400 · 30 tokens · 2 answers/);
    // 29 empty days, then today at the top.
    expect(printed).toContain(`${'▁'.repeat(29)}█`);
    expect(printed).toContain('Daily limits: $5.00 per person · 2 answers at once');
    // Not an admin: no one else's usage.
    expect(printed).not.toContain('Top users');
  });
});

describe('/usage counts in words', () => {
  let h: TestScout | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('one answer is "1 answer", one at once is "1 answer at once", in English and in Chinese', async () => {
    h = await startTestScout({ env: { PRICE_TABLE: PRICES, MAX_TURNS_PER_USER: '1' } });
    h.llm.fallback = () => textReply('An answer.');
    const en = await pipedTerminalChat(h, ['one question', '/usage'], 'console:usage-one');
    expect(en.code).toBe(0);
    expect(en.printed).toMatch(/Today: \$0\.0200 · 15 tokens · 1 answer$/m);
    expect(en.printed).toContain('Daily limits: 1 answer at once');
    expect(en.printed).not.toMatch(/\b1 answers\b/);
    await h.close();

    h = await startTestScout({ env: { PRICE_TABLE: PRICES, MAX_TURNS_PER_USER: '1', BOT_LOCALE: 'zh' } });
    h.llm.fallback = () => textReply('回答。');
    const zh = await pipedTerminalChat(h, ['一个问题', '/usage'], 'console:usage-one-zh');
    expect(zh.printed).toMatch(/今天: \$0\.0200 · 15 token · 1 次回答$/m);
    expect(zh.printed).toContain('同时 1 个回答');
  });
});

describeWithShared('/usage on Slack', () => {
  let s: SlackHarness | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('answers the asker ephemerally with their own usage and sparkline; admins also get top lists', async () => {
    const { slashCommand: base } = slashFixture();
    s = await startSlackHarness({ env: { ADMIN_USERS: 'UADMIN1' } });
    await seed(s.h.stores, base.user_id!, `slack:${base.team_id}:${base.channel_id}`);
    await s.command({ ...base, command: '/usage', text: '' });
    await s.slack.waitFor(() => s!.slack.callsTo('chat.postEphemeral').length === 1, 5000, 'usage reply');
    const mine = s.slack.callsTo('chat.postEphemeral')[0]!.args;
    expect(mine.user).toBe(base.user_id);
    const text = String(mine.text) + visibleText(mine.blocks ?? []);
    expect(text).toContain('Your usage');
    expect(text).toMatch(/7 days: \$0\.4000 · 4,000 tokens · 2 answers/);
    expect(text).toContain(`${'▁'.repeat(26)}▄▁█▁`);
    expect(text).not.toContain('Top channels');
    expect(s.slack.callsTo('chat.postMessage')).toHaveLength(0);

    await s.command({ ...base, user_id: 'UADMIN1', command: '/usage', text: '' });
    await s.slack.waitFor(() => s!.slack.callsTo('chat.postEphemeral').length === 2, 5000, 'admin reply');
    const admin = s.slack.callsTo('chat.postEphemeral')[1]!.args;
    const adminText = String(admin.text) + visibleText(admin.blocks ?? []);
    expect(adminText).toContain('Top channels');
    expect(adminText).toContain(`slack:${base.team_id}:${base.channel_id}`);
    expect(adminText).toContain(base.user_id);
    expect(adminText).toContain('openai/test-model');
    expect(adminText).toMatch(/web_search`? — 6 calls/);
  });

  it('App Home shows admins the usage report (text: sparkline and top lists); others see no usage there', async () => {
    const team = 'T00FAKE00AA';
    s = await startSlackHarness({ env: { ADMIN_USERS: 'UADMIN1' } });
    await seed(s.h.stores, 'U00FAKEUSER1', `slack:${team}:C0USAGE`);
    const open = async (user: string, n: number) => {
      await s!.event({
        team_id: team,
        type: 'event_callback',
        event: { type: 'app_home_opened', user, channel: 'D1', tab: 'home', event_ts: '1.1' },
      });
      await s!.slack.waitFor(() => s!.slack.callsTo('views.publish').length === n, 3000, 'home view');
      return visibleText(s!.slack.callsTo('views.publish')[n - 1]!.args.view.blocks);
    };
    const admin = await open('UADMIN1', 1);
    expect(admin).toContain('Top users');
    expect(admin).toContain('U00FAKEUSER1');
    expect(admin).toMatch(/[▁▂▃▄▅▆▇█]{30}/);
    const member = await open('U00FAKEUSER1', 2);
    expect(member).not.toContain('Top users');
    expect(member).not.toContain('Your usage');
  });
});

describeWithShared('/usage on Discord', () => {
  let e: E2E | undefined;
  afterEach(async () => {
    await closeE2E(e);
    e = undefined;
  });

  it('is registered, answers ephemerally and attaches the 30-day chart as a PNG', async () => {
    e = await startE2E({ ADMIN_USERS: meta.userId });
    await seed(e.harness.stores, meta.userId, `discord:${meta.guildId}:${meta.channelId}`);
    const registered = e.fake.callsTo('PUT /applications/:application/commands').at(-1)?.body ?? [];
    expect(registered.map((c: { name: string }) => c.name)).toContain('usage');

    const { token } = e.fake.interact(slashCommand('usage'));
    const reply = await e.fake
      .waitFor(
        () => (e!.fake.originalResponse(token)?.content.includes('Your usage') ? e : undefined),
        // A hang guard, not a speed check: the first chart loads sharp (libvips), seconds on a busy machine.
        15_000,
        'usage reply',
      )
      .catch((err: Error) => {
        // Where the reply stopped, for a failure that is hard to reproduce.
        const seen = e!.fake.calls.map((c) => `${c.route} ${c.status}`).slice(-8);
        throw new Error(`${err.message}; the fake's last calls: ${seen.join(', ')}`);
      });
    expect(reply).toBeDefined();
    const content = e.fake.originalResponse(token)!.content;
    expect(content).toMatch(/7 days: \$0\.4000 · 4,000 tokens · 2 answers/);
    expect(content).toContain('Top models');
    // Deferred ephemerally (flag 64), then edited with the text and the chart.
    const deferred = e.fake.callsTo('POST /interactions/:interaction/:token/callback').at(-1)!;
    expect(deferred.body.data.flags & 64).toBe(64);
    const edit = e.fake
      .callsTo('PATCH /webhooks/:application/:token/messages/@original')
      .find((c) => (c.body.uploads ?? []).length > 0);
    const file = edit?.body.uploads[0] as UploadedFile;
    expect(file.filename).toBe('usage.png');
    expect(file.contentType).toBe('image/png');
    const png = await sharp(file.bytes).metadata();
    expect(png).toMatchObject({ format: 'png', width: 640, height: 240 });
    expect(edit!.body.attachments?.[0]?.description).toContain('spend per day');
  });
});

describe('the chart', () => {
  it('draws one bar per day, scaled to the largest, with empty days flat', () => {
    const values = [...Array(28).fill(0), 0.1, 0.3];
    const svg = spendChartSvg(values, { unit: 'usd', from: '2026-01-01', to: '2026-01-30' });
    const heights = [...svg.matchAll(/class="bar"[^>]*height="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(heights).toHaveLength(30);
    expect(heights.slice(0, 28).every((v) => v === 0)).toBe(true);
    expect(heights[29]! / heights[28]!).toBeCloseTo(3, 5);
    expect(svg).toContain('$0.3000');
  });
});

describeWithShared('a usage limit on Discord', () => {
  let e: E2E | undefined;
  afterEach(async () => {
    await closeE2E(e);
    e = undefined;
  });

  /** The real core on a fake Discord, the fixture user having spent $0.02 today, with this daily limit. */
  async function spentTwoCentsOf(limitUsd: string, answer: string): Promise<E2E> {
    const world = await startE2E({
      PRICE_TABLE: PRICES,
      BUDGET_USER_DAILY_USD: limitUsd,
      DISCORD_GUILD_ID: meta.guildId,
    });
    world.harness.llm.fallback = () => textReply(answer);
    await world.harness.stores.usage.add(today(), [
      { dim: 'u', field: usageField(meta.userId, 'usd'), by: 0.02 },
    ]);
    return world;
  }

  it('the refused asker is told by DM which limit and when it resets; nothing public, no turn', async () => {
    e = await spentTwoCentsOf('0.01', 'An answer.');
    const before = e.fake.callsTo('POST /channels/:channel/messages').length;
    e.fake.dispatch('MESSAGE_CREATE', fixtureMessage('gatewayMention'));
    const asker = meta.userId;
    await e.fake.waitFor(
      () => e!.fake.callsTo('POST /users/@me/channels').length > 0 || undefined,
      8000,
      'the DM channel',
    );
    const dm = await e.fake.waitFor(
      () =>
        e!.fake
          .callsTo('POST /channels/:channel/messages')
          .slice(before)
          .find((c) => String(c.body.content).includes('daily spending limit')),
      8000,
      'the private notice',
    );
    expect(e.fake.callsTo('POST /users/@me/channels').map((c) => c.body.recipient_id)).toEqual([asker]);
    expect(String(dm.body.content)).toContain('resets at 00:00 UTC');
    expect(e.fake.messagesIn(meta.channelId)).toEqual([]);
    // Not even an empty thread named after the question on the asker's message.
    expect(e.fake.callsTo('POST /channels/:channel/messages/:message/threads')).toEqual([]);
    expect(e.harness.llm.requests).toHaveLength(0);
  });

  it('an asker under the limit still gets the thread, and the answer in it', async () => {
    e = await spentTwoCentsOf('0.05', 'An answer under the limit.');
    const mention = fixtureMessage('gatewayMention');
    e.fake.dispatch('MESSAGE_CREATE', mention);
    await finishedIn(e, mention.id);
    expect(e.fake.callsTo('POST /channels/:channel/messages/:message/threads')).toHaveLength(1);
    const thread = e.fake.messagesIn(mention.id).map((m) => m.content);
    expect(thread.join('\n')).toContain('An answer under the limit.');
  });
});
