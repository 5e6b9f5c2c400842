/**
 * Issue 27 §7: a thread longer than any page budget. conversations.replies pages oldest first (the
 * fake pages exactly so: at most 1000 per page, a cursor, the parent on every page), so a reader
 * that pages from the start and stops at a cap hands the model the oldest replies. Scout must give
 * it the newest, always: through the real Bolt app on a 12,000-reply thread, and through the
 * adapter's source on threads whose replies are spread unevenly over a month.
 */
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { slackContextSource } from '../../adapters/slack/context-source.js';
import type { SlackClient } from '../../adapters/slack/slack-client.js';
import { SlackUserDirectory } from '../../adapters/slack/user-directory.js';
import { silentLogger } from '../../src/logger.js';
import { type FakeSlackApi, startFakeSlackApi } from '../helpers/fake-slack-api.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { type SlackHarness, startSlackHarness } from '../slack/slack-harness.js';
import { allText } from './context-kit.js';

const BOT = 'U00FAKEBOT01';
const TEAM = 'T00FAKE00AA';
const CHANNEL = 'C00FAKECHAN1';

let s: SlackHarness | undefined;
let slack: FakeSlackApi | undefined;
afterEach(async () => {
  await s?.close();
  await slack?.close();
  s = undefined;
  slack = undefined;
});

/** Every conversations.replies call asked Slack for at most a page Slack would give. */
function pagedLikeSlack(api: FakeSlackApi): void {
  for (const call of api.callsTo('conversations.replies')) {
    expect(Number(call.args.limit)).toBeLessThanOrEqual(1000);
    expect(call.response).toMatchObject({ ok: true });
  }
}

describe('Slack: a thread of 12,000 replies', () => {
  it('the model gets the newest replies, not the first 10,000', async () => {
    s = await startSlackHarness({ env: { CONTEXT_MAX_TOKENS: '2000' } });
    s.h.llm.fallback = () => textReply('ok');
    const parent = s.slack.addUserMessage({ channel: CHANNEL, user: 'U00ALICE001', text: 'long thread' });
    for (let i = 0; i < 12_000; i++)
      s.slack.addUserMessage({
        channel: CHANNEL,
        user: 'U00BOB00001',
        text: `reply number ${i} end`,
        threadTs: parent,
      });
    const text = `<@${BOT}> what was decided last?`;
    const ts = s.slack.addUserMessage({ channel: CHANNEL, user: 'U00ALICE001', text, threadTs: parent });
    await s.event({
      team_id: TEAM,
      type: 'event_callback',
      event: { type: 'app_mention', user: 'U00ALICE001', ts, text, channel: CHANNEL, thread_ts: parent },
    });
    await s.surface.idle();
    const body = allText(s.h.llm.requests[0]!.body);
    expect(body).toContain('reply number 11999 end');
    expect(body).toContain('reply number 11990 end');
    expect(body).not.toContain('reply number 9999 end');
    expect(body).not.toContain('long thread');
    pagedLikeSlack(s.slack);
    expect(s.slack.callsTo('conversations.replies').length).toBeLessThanOrEqual(12);
  }, 60_000);
});

/** A month of replies: bursts of up to 400 within minutes, quiet hours and days between. */
function unevenThread(api: FakeSlackApi, replies: number, seed: number): { parent: string; all: string[] } {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const start = 1_760_000_000 * 1_000_000;
  const toTs = (us: number) => `${Math.floor(us / 1e6)}.${String(us % 1e6).padStart(6, '0')}`;
  const parent = toTs(start);
  const put = (ts: string, text: string, user: string, threadTs?: string) =>
    api.messages.set(`${CHANNEL}:${ts}`, {
      channel: CHANNEL,
      ts,
      ...(threadTs ? { threadTs } : {}),
      text,
      user,
      blocks: [],
      edits: [],
      streaming: false,
      streamedText: '',
      chunks: [],
      deleted: false,
    });
  put(parent, 'the parent', 'U00ALICE001');
  const all: string[] = [];
  let at = start;
  while (all.length < replies) {
    at += Math.floor(random() * 3 * 86_400e6); // up to three quiet days
    const burst = Math.min(replies - all.length, 1 + Math.floor(random() * 400));
    for (let i = 0; i < burst; i++) {
      at += 1 + Math.floor(random() * 2e6); // a reply every 0–2 s within a burst
      const ts = toTs(at);
      put(ts, `r${all.length}`, 'U00BOB00001', parent);
      all.push(ts);
    }
  }
  return { parent, all };
}

function source(api: FakeSlackApi, parent: string, ts: string) {
  const client = new WebClient('xoxb-test-token', { slackApiUrl: api.url, retryConfig: { retries: 0 } });
  return slackContextSource({
    client: client as unknown as SlackClient,
    token: 'xoxb-test-token',
    apiUrl: api.url,
    channel: CHANNEL,
    ts,
    threadTs: parent,
    files: [],
    readThread: true,
    users: new SlackUserDirectory((args) => client.users.info(args), { max: 100, ttl: 3600_000 }),
    logger: silentLogger,
  });
}

describe('Slack context source: uneven threads', () => {
  for (const seed of [1, 7, 42]) {
    it(`seed ${seed}: exactly the newest 500 before the mention, newest first, within 12 calls`, async () => {
      slack = await startFakeSlackApi();
      const { parent, all } = unevenThread(slack, 12_000, seed);
      // The mention is the 11,001st reply: the 999 after it must not be read either.
      const mentionTs = all[11_000]!;
      const earlier = await source(slack, parent, mentionTs).earlier!({
        limit: 500,
        signal: new AbortController().signal,
      });
      expect(earlier.map((m) => m.id)).toEqual(all.slice(10_500, 11_000).reverse());
      pagedLikeSlack(slack);
      expect(slack.callsTo('conversations.replies').length).toBeLessThanOrEqual(12);
    });
  }

  it('a follow-up reads only what came after the previous turn; a short thread is one call with its parent', async () => {
    slack = await startFakeSlackApi();
    const { parent, all } = unevenThread(slack, 3_000, 3);
    const followUp = await source(slack, parent, all[2_999]!).earlier!({
      after: all[2_980]!,
      limit: 500,
      signal: new AbortController().signal,
    });
    expect(followUp.map((m) => m.id)).toEqual(all.slice(2_981, 2_999).reverse());

    const short = await startFakeSlackApi();
    try {
      const thread = unevenThread(short, 40, 5);
      const read = await source(short, thread.parent, thread.all[39]!).earlier!({
        limit: 500,
        signal: new AbortController().signal,
      });
      expect(read.map((m) => m.id)).toEqual([...thread.all.slice(0, 39).reverse(), thread.parent]);
      expect(short.callsTo('conversations.replies')).toHaveLength(1);
    } finally {
      await short.close();
    }
  });
});
