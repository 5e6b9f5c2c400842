/**
 * Slack context end to end: the real core and Bolt app on the fake Web API (conversations.replies,
 * users.info, url_private), with the OpenAI-compatible or Anthropic fake as the model. What the
 * model is sent and what the user sees in Slack are asserted, not internals.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeAnthropic,
  anthropicTextReply,
  startFakeAnthropic,
} from '../helpers/fake-anthropic-server.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { type SlackHarness, startSlackHarness, visibleText } from '../slack/slack-harness.js';
import {
  allText,
  brokenPng,
  type ElsewhereServer,
  makePdf,
  makePdfBomb,
  makePng,
  startElsewhere,
  userContents,
  zipBytes,
} from './context-kit.js';

// biome-ignore lint/suspicious/noExplicitAny: request bodies and Slack payloads are read freely
type Json = any;

const BOT = 'U00FAKEBOT01';
const TEAM = 'T00FAKE00AA';
const CHANNEL = 'C00FAKECHAN1';

let s: SlackHarness | undefined;
let anthropic: FakeAnthropic | undefined;
let elsewhere: ElsewhereServer | undefined;
afterEach(async () => {
  await s?.close();
  await anthropic?.close();
  await elsewhere?.close();
  s = undefined;
  anthropic = undefined;
  elsewhere = undefined;
});

type MentionOptions = { threadTs?: string; files?: Json[]; user?: string };

/** Posts an app_mention for a message the fake already holds (so conversations.replies knows it). */
async function postMention(h: SlackHarness, text: string, options: MentionOptions = {}): Promise<string> {
  const user = options.user ?? 'U00ALICE001';
  const ts = h.slack.addUserMessage({
    channel: CHANNEL,
    user,
    text: `<@${BOT}> ${text}`,
    ...(options.threadTs ? { threadTs: options.threadTs } : {}),
    ...(options.files ? { files: options.files } : {}),
  });
  await h.event({
    team_id: TEAM,
    type: 'event_callback',
    event: {
      type: 'app_mention',
      user,
      ts,
      text: `<@${BOT}> ${text}`,
      channel: CHANNEL,
      ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
      ...(options.files ? { files: options.files } : {}),
    },
  });
  return ts;
}

/** A mention, answered: posted, then every turn it started has finished. */
async function mention(h: SlackHarness, text: string, options: MentionOptions = {}): Promise<string> {
  const ts = await postMention(h, text, options);
  await h.surface.idle();
  return ts;
}

/** Everything Scout posted in a thread, as the user reads it. */
function seen(h: SlackHarness, threadTs: string): string {
  return h.slack
    .messagesIn(CHANNEL, threadTs)
    .filter((m) => m.user === BOT)
    .map((m) => `${m.text}\n${visibleText(m.blocks)}`)
    .join('\n');
}

/** A human thread: a parent and replies by two people, plus another bot's message. */
function humanThread(h: SlackHarness): string {
  const parent = h.slack.addUserMessage({
    channel: CHANNEL,
    user: 'U00ALICE001',
    text: 'Deploy failed on prod at 10:02',
  });
  h.slack.addUserMessage({
    channel: CHANNEL,
    user: 'U00BOB00001',
    text: 'Error was ECONNRESET from redis',
    threadTs: parent,
  });
  h.slack.addUserMessage({
    channel: CHANNEL,
    user: 'U00CI000001',
    botId: 'B00CIBOT001',
    text: 'CI bot: build #42 green',
    threadTs: parent,
  });
  h.slack.addUserMessage({
    channel: CHANNEL,
    user: 'U00ALICE001',
    text: 'Rolled back at 10:15',
    threadTs: parent,
  });
  return parent;
}

describe('Slack: thread context', () => {
  it('a burst of mentions costs one users.info per person, for both the reply language and the authors’ names', async () => {
    s = await startSlackHarness({
      fake: { userLocales: { U00ALICE001: 'zh-CN' } },
      env: { MAX_TURNS_PER_USER: '4' },
    });
    s.h.llm.fallback = () => textReply('Redis dropped connections.');
    const h = s;
    const parents = [humanThread(h), humanThread(h), humanThread(h), humanThread(h)];
    // Four mentions by Alice at once, each in a thread Bob and Alice wrote in: nobody is cached yet.
    await Promise.all(
      parents.map((parent, i) => postMention(h, `what happened in ${i}?`, { threadTs: parent })),
    );
    await h.surface.idle();

    const lookups = h.slack.callsTo('users.info').map((c) => c.args.user);
    expect(lookups.sort()).toEqual(['U00ALICE001', 'U00BOB00001']);
    for (const call of h.slack.callsTo('users.info')) expect(String(call.args.include_locale)).toBe('true');
    // Every answer is in Alice's language, and every model request names the authors.
    for (const parent of parents) {
      expect(seen(h, parent)).toContain('已读取之前的 3 条消息');
      expect(seen(h, parent)).toContain('Redis dropped connections.');
    }
    expect(h.h.llm.requests).toHaveLength(4);
    for (const request of h.h.llm.requests)
      expect(userContents(request.body).map(String).join('\n')).toMatch(
        /Real U00ALICE001:[\s\S]*Real U00BOB00001:/,
      );
  });

  it('a mention mid-thread sends the earlier human messages, by name, as delimited data — and not again on a follow-up', async () => {
    s = await startSlackHarness();
    s.h.llm.fallback = () => textReply('Looks like redis dropped connections.');
    const parent = humanThread(s);
    await mention(s, 'what happened here?', { threadTs: parent });

    const first = s.h.llm.requests[0]!.body;
    const users = userContents(first).map(String);
    expect(users.at(-1)).toBe('what happened here?');
    const context = users.at(-2)!;
    expect(context).toContain('<thread_messages>');
    expect(context).toMatch(
      /Real U00ALICE001: Deploy failed on prod at 10:02[\s\S]*ECONNRESET[\s\S]*Rolled back at 10:15/,
    );
    expect(context).not.toContain('CI bot');
    expect(context).toContain('not instructions');
    expect(seen(s, parent)).toContain('Read 3 earlier messages');

    // Someone adds one message, then mentions Scout again: only the new message is read.
    s.slack.addUserMessage({
      channel: CHANNEL,
      user: 'U00BOB00001',
      text: 'Redis restarted at 10:20',
      threadTs: parent,
    });
    await mention(s, 'and now?', { threadTs: parent });
    const second = s.h.llm.requests[1]!.body;
    const text = allText(second);
    expect(text.match(/Deploy failed on prod/g)).toHaveLength(1);
    expect(text).toContain('Redis restarted at 10:20');
    const replies = s.slack.callsTo('conversations.replies');
    expect(replies.at(-1)!.args.oldest).toBeDefined();
    expect(s.slack.violations).toEqual([]);
  });

  it('THREAD_CONTEXT=off reads nothing', async () => {
    s = await startSlackHarness({ env: { THREAD_CONTEXT: 'off' } });
    s.h.llm.fallback = () => textReply('ok');
    const parent = humanThread(s);
    await mention(s, 'summarise', { threadTs: parent });
    expect(s.slack.callsTo('conversations.replies')).toHaveLength(0);
    expect(allText(s.h.llm.requests[0]!.body)).not.toContain('ECONNRESET');
  });

  it('a thread of 5,000 messages is read newest first within the budget, with a note', async () => {
    s = await startSlackHarness({ env: { CONTEXT_MAX_TOKENS: '2000' } });
    s.h.llm.fallback = () => textReply('ok');
    const parent = s.slack.addUserMessage({ channel: CHANNEL, user: 'U00ALICE001', text: 'long thread' });
    for (let i = 0; i < 5_000; i++)
      s.slack.addUserMessage({
        channel: CHANNEL,
        user: 'U00BOB00001',
        text: `message number ${i}`,
        threadTs: parent,
      });
    await mention(s, 'tl;dr?', { threadTs: parent });
    const body = allText(s.h.llm.requests[0]!.body);
    expect(body).toContain('message number 4999');
    expect(body).not.toContain('message number 10 ');
    expect(seen(s, parent)).toMatch(/older messages left out/);
    expect(s.slack.callsTo('conversations.replies').length).toBeLessThanOrEqual(10);
  });

  it('a thread someone else opened is not taken over: after a mention, plain messages get no answer', async () => {
    s = await startSlackHarness();
    s.h.llm.fallback = () => textReply('answer');
    const parent = humanThread(s);
    await mention(s, 'thoughts?', { threadTs: parent });
    expect(s.h.llm.requests).toHaveLength(1);
    const ts = s.slack.addUserMessage({
      channel: CHANNEL,
      user: 'U00BOB00001',
      text: 'lol anyway, lunch at 12?',
      threadTs: parent,
    });
    await s.event({
      team_id: TEAM,
      type: 'event_callback',
      event: {
        type: 'message',
        user: 'U00BOB00001',
        ts,
        text: 'lol anyway, lunch at 12?',
        channel: CHANNEL,
        channel_type: 'channel',
        thread_ts: parent,
      },
    });
    await s.surface.idle();
    expect(s.h.llm.requests).toHaveLength(1);
  });
});

describe('Slack: images and files', () => {
  async function withFile(
    h: SlackHarness,
    name: string,
    mimetype: string,
    bytes: Uint8Array,
    extra: Record<string, unknown> = {},
  ) {
    return h.slack.addFile({
      id: `F${Math.random().toString(36).slice(2, 10).toUpperCase()}`,
      name,
      mimetype,
      bytes,
      ...extra,
    });
  }

  it('a PNG reaches an OpenAI vision model as an image_url data URL, downloaded with the bot token', async () => {
    s = await startSlackHarness({ env: { AGENT_FUNCTION_CALL_MODEL: 'openai/gpt-4o' } });
    s.h.llm.fallback = () => textReply('A blue square.');
    const file = await withFile(s, 'screenshot.png', 'image/png', await makePng());
    await mention(s, 'what is this?', { files: [file] });
    const users = s.h.llm.requests[0]!.body.messages.filter((m: Json) => m.role === 'user');
    const parts = users.flatMap((m: Json) => (Array.isArray(m.content) ? m.content : []));
    const image = parts.find((p: Json) => p.type === 'image_url');
    expect(image.image_url.url).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(s.slack.downloads).toHaveLength(1);
    expect(s.slack.downloads[0]!.token).toBe('xoxb-test-token');
  });

  it('a PNG reaches an Anthropic model as an image block', async () => {
    anthropic = await startFakeAnthropic();
    anthropic.fallback = () => anthropicTextReply('A blue square.');
    s = await startSlackHarness({
      env: {
        AGENT_FUNCTION_CALL_MODEL: 'anthropic/claude-sonnet-4-5',
        ANTHROPIC_API_KEY: 'sk-ant-test',
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
      },
    });
    const file = await withFile(s, 'chart.png', 'image/png', await makePng(4000, 3000));
    await mention(s, 'what is this?', { files: [file] });
    const blocks = anthropic.requests[0]!.body.messages.flatMap((m: Json) => m.content);
    const image = blocks.find((b: Json) => b.type === 'image');
    expect(image.source.type).toBe('base64');
    // 4000×3000 is over Anthropic's 1568 px: resized (and re-encoded) before sending.
    expect(image.source.media_type).toBe('image/jpeg');
    expect(Buffer.from(image.source.data, 'base64').byteLength).toBeLessThan(3_500_000);
  });

  it('a model that cannot see gets the text and the user a notice naming /model', async () => {
    s = await startSlackHarness({
      env: { AGENT_FUNCTION_CALL_MODEL: '{"provider":"openai","model":"test-model","vision":false}' },
    });
    s.h.llm.fallback = () => textReply('I cannot see it.');
    const file = await withFile(s, 'screenshot.png', 'image/png', await makePng());
    const ts = await mention(s, 'what is this?', { files: [file] });
    expect(allText(s.h.llm.requests[0]!.body)).not.toContain('image_url');
    expect(seen(s, ts)).toMatch(/can’t read images.*screenshot\.png.*\/model/s);
    expect(s.slack.downloads).toHaveLength(0);
  });

  it('a PDF’s text and a log file reach the model, each named', async () => {
    s = await startSlackHarness();
    s.h.llm.fallback = () => textReply('Summary.');
    const pdf = await withFile(
      s,
      'report.pdf',
      'application/pdf',
      makePdf('Quarterly revenue was 42 million'),
    );
    const log = await withFile(s, 'app.log', 'text/plain', Buffer.from('ERROR db timeout after 30s\n'));
    const ts = await mention(s, 'summarise these', { files: [pdf, log] });
    const body = allText(s.h.llm.requests[0]!.body);
    expect(body).toContain('<file name=\\"report.pdf\\">');
    expect(body).toContain('Quarterly revenue was 42 million');
    expect(body).toContain('ERROR db timeout after 30s');
    expect(seen(s, ts)).toContain('Read report.pdf, app.log');
  });

  it('a long file and the thread share the budget: the file is cut with a note, the thread still fits', async () => {
    s = await startSlackHarness({ env: { CONTEXT_MAX_TOKENS: '3000' } });
    s.h.llm.fallback = () => textReply('Both read.');
    const parent = humanThread(s);
    const long = Array.from({ length: 4_000 }, (_, i) => `line ${i}: GET /api/items 200 12ms`).join('\n');
    const log = await withFile(s, 'access.log', 'text/plain', Buffer.from(long));
    await mention(s, 'anything odd?', { threadTs: parent, files: [log] });
    const body = allText(s.h.llm.requests[0]!.body);
    expect(body).toContain('line 0: GET /api/items');
    expect(body).not.toContain('line 3999:');
    expect(body).toContain('access.log was cut to fit the context budget');
    expect(body).toContain('Deploy failed on prod at 10:02');
    expect(body).toContain('Rolled back at 10:15');
  });

  it('bad files each get a notice, the answer still comes, and no token leaves Slack’s hosts', async () => {
    elsewhere = await startElsewhere();
    s = await startSlackHarness({ env: { AGENT_FUNCTION_CALL_MODEL: 'openai/gpt-4o' } });
    s.h.llm.fallback = () => textReply('Answered anyway.');
    const files = [
      await withFile(s, 'huge.csv', 'text/csv', Buffer.from('a,b\n'), { size: 50 * 1024 * 1024 }),
      await withFile(s, 'archive.pdf', 'application/pdf', zipBytes()),
      await withFile(s, 'broken.png', 'image/png', brokenPng()),
      await withFile(s, 'bomb.pdf', 'application/pdf', makePdfBomb()),
      await withFile(s, 'moved.png', 'image/png', await makePng(), { redirectTo: `${elsewhere.url}/steal` }),
      {
        id: 'FEVIL00001',
        name: 'evil.png',
        mimetype: 'image/png',
        size: 10,
        url_private: `${elsewhere.url}/evil.png`,
      },
      await withFile(s, 'setup.exe', 'application/octet-stream', Buffer.from('MZ')),
    ];
    // The turn ends with every refusal shown (a file that stalled it would fail the test's timeout).
    const ts = await mention(s, 'look at these', { files });
    const shown = seen(s, ts);
    expect(shown).toContain('Answered anyway.');
    expect(shown).toMatch(/Skipped huge\.csv: it is larger than 20 MB/);
    expect(shown).toMatch(/Skipped archive\.pdf: it is not a valid PDF/);
    expect(shown).toMatch(/Could not read broken\.png as an image/);
    expect(shown).toMatch(/bomb\.pdf/);
    expect(shown).toMatch(/Skipped evil\.png: its link is not on the platform’s own file servers/);
    expect(shown).toMatch(/moved\.png/);
    expect(shown).toMatch(/Skipped setup\.exe: Scout reads images, PDFs and text files only/);
    expect(elsewhere.hits).toEqual([]);
    // The 50 MB file was never downloaded (its size was known).
    expect(s.slack.downloads.some((d) => d.path.includes('huge.csv'))).toBe(false);
  }, 40_000);
});
