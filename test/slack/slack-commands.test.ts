import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { type SlackHarness, slashFixture, startSlackHarness, threadFixture } from './slack-harness.js';

describeWithShared('Slack commands', () => {
  let s: SlackHarness;
  beforeEach(async () => {
    s = await startSlackHarness();
  });
  afterEach(async () => {
    await s.close();
  });

  it('/mode agent replies ephemerally, changes the channel mode and clears its histories', async () => {
    const fx = threadFixture();
    const { slashCommand } = slashFixture();
    const team = fx.mention.team_id;
    const channel = fx.mention.event.channel;
    const channelKey = `slack:${team}:${channel}`;
    // A conversation with history in that channel.
    s.h.llm.enqueue(textReply('Remember the word PINEAPPLE'));
    await s.event({ ...fx.mention, event: { ...fx.mention.event, type: 'app_mention' } });
    await s.surface.idle();

    const res = await s.command({
      ...slashCommand,
      team_id: team,
      channel_id: channel,
      command: '/mode',
      text: 'agent',
    });
    expect(res.status).toBe(200);
    await s.slack.waitFor(() => s.slack.callsTo('chat.postEphemeral').length > 0, 5000, 'ephemeral reply');
    const reply = s.slack.callsTo('chat.postEphemeral')[0]!;
    expect(reply.args.user).toBe(slashCommand.user_id);
    expect(reply.args.channel).toBe(channel);
    expect(String(reply.args.text).toLowerCase()).toContain('agent');
    expect(s.slack.callsTo('chat.postMessage')).toHaveLength(1); // only the earlier answer
    expect((await s.h.scout.getSettings(channelKey)).mode).toBe('agent');

    // The follow-up in the same thread starts from an empty history.
    s.h.llm.fallback = () => textReply('Fresh start');
    await s.event(fx.followUp);
    await s.surface.idle();
    const requests = s.h.llm.requests.slice(1).map((r) => JSON.stringify(r.body));
    expect(requests.length).toBeGreaterThan(0);
    for (const body of requests) expect(body).not.toContain('PINEAPPLE');
  });

  it('maps a renamed command (/scout-help) to the same handler', async () => {
    const { slashCommand } = slashFixture();
    await s.command({ ...slashCommand, command: '/scout-help', text: '' });
    await s.slack.waitFor(() => s.slack.callsTo('chat.postEphemeral').length > 0, 5000, 'help reply');
    const text = String(s.slack.callsTo('chat.postEphemeral')[0]!.args.text);
    expect(text).toContain('/mode');
  });

  it('in a channel Scout was never invited to, the reply goes through the response_url', async () => {
    const received: Array<Record<string, unknown>> = [];
    const hook = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    try {
      s.slack.ephemeralError = 'not_in_channel';
      const { port } = hook.address() as AddressInfo;
      await s.command({
        ...slashFixture().slashCommand,
        command: '/config',
        text: '',
        response_url: `http://127.0.0.1:${port}/commands/T1/1/x`,
      });
      await s.slack.waitFor(() => received.length > 0, 5000, 'response_url reply');
      expect(received[0]).toMatchObject({ response_type: 'ephemeral' });
      expect(String(received[0]?.text)).toContain('openai/test-model');
    } finally {
      await new Promise<void>((resolve) => hook.close(() => resolve()));
    }
  });

  it('a reply longer than one message arrives whole, as ephemerals within Slack’s limits, mentions defused', async () => {
    const lines = Array.from(
      { length: 30 },
      (_, i) => `Line ${i} for <!channel> and @here: ${'x'.repeat(600)}`,
    );
    vi.spyOn(s.h.scout, 'runCommand').mockResolvedValue({ text: lines.join('\n\n'), changed: false });
    await s.command({ ...slashFixture().slashCommand, command: '/scout-help', text: '' });
    const shown = () =>
      s.slack
        .callsTo('chat.postEphemeral')
        .map((c) => String((c.args.blocks as Array<{ text: string }>)[0]!.text));
    await s.slack.waitFor(() => shown().some((t) => t.includes('Line 29')), 5000, 'the last part');
    const replies = s.slack.callsTo('chat.postEphemeral');
    expect(replies.length).toBeGreaterThan(1);
    for (const reply of replies) {
      expect(String(reply.args.text).length).toBeLessThanOrEqual(1_000);
      expect(shown()[replies.indexOf(reply)]!.length).toBeLessThanOrEqual(10_000);
    }
    const all = shown().join('\n\n');
    for (const i of [0, 14, 29]) expect(all).toContain(`Line ${i} for`);
    expect(all).not.toContain('<!channel>');
    expect(all).not.toMatch(/@here/);
  });

  it('a rate-limited command reply is retried after Slack’s delay, not sent through the response_url', async () => {
    const received: unknown[] = [];
    const hook = createServer((req, res) => {
      received.push(req.url);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    try {
      s.slack.rateLimit('chat.postEphemeral', 2, 0);
      const { port } = hook.address() as AddressInfo;
      await s.command({
        ...slashFixture().slashCommand,
        command: '/scout-help',
        text: '',
        response_url: `http://127.0.0.1:${port}/commands/T1/1/x`,
      });
      await s.slack.waitFor(
        () => s.slack.callsTo('chat.postEphemeral').some((c) => c.status === 200),
        5000,
        'the reply after the rate limit',
      );
      expect(s.slack.callsTo('chat.postEphemeral').map((c) => c.status)).toEqual([429, 429, 200]);
      expect(received).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => hook.close(() => resolve()));
    }
  });

  it('`@Scout mode chat` in a thread works as a command', async () => {
    const fx = threadFixture();
    const channelKey = `slack:${fx.mention.team_id}:${fx.mention.event.channel}`;
    await s.command({
      ...slashFixture().slashCommand,
      team_id: fx.mention.team_id,
      channel_id: fx.mention.event.channel,
      command: '/mode',
      text: 'agent',
    });
    await s.slack.waitFor(() => s.slack.callsTo('chat.postEphemeral').length > 0);
    const mention = {
      ...fx.mention,
      event: {
        ...fx.mention.event,
        type: 'app_mention',
        text: `<@${fx.botUserId}> mode chat`,
        thread_ts: '1767224800.000001',
      },
    };
    await s.event(mention);
    await s.surface.idle();
    expect((await s.h.scout.getSettings(channelKey)).mode).toBe('chat');
    const replies = s.slack.callsTo('chat.postEphemeral');
    expect(replies).toHaveLength(2);
    expect(replies[1]!.args.thread_ts).toBe('1767224800.000001');
    expect(s.h.llm.requests).toHaveLength(0);
  });

  it('a private reply Slack refuses as ephemeral goes to a DM, never into the thread', async () => {
    const fx = threadFixture();
    s.slack.ephemeralError = 'not_in_channel';
    await s.event({
      ...fx.mention,
      event: { ...fx.mention.event, type: 'app_mention', text: `<@${fx.botUserId}>` },
    });
    await s.surface.idle();
    const posts = s.slack.callsTo('chat.postMessage');
    expect(posts.filter((c) => c.args.channel === fx.mention.event.channel)).toEqual([]);
    expect(posts.map((c) => c.args.channel)).toEqual([fx.mention.event.user]);
  });

  it('an empty mention gets short help, not a model call', async () => {
    const fx = threadFixture();
    s.h.llm.enqueue(textReply('should not be used'));
    await s.event({
      ...fx.mention,
      event: { ...fx.mention.event, type: 'app_mention', text: `<@${fx.botUserId}>` },
    });
    await s.surface.idle();
    expect(s.h.llm.requests).toHaveLength(0);
    expect(s.slack.callsTo('chat.postEphemeral')).toHaveLength(1);
  });
});
