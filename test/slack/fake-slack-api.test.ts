import { createHmac } from 'node:crypto';
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeSlackApi,
  SLACK_TIER_3,
  signSlackRequest,
  startFakeSlackApi,
} from '../helpers/fake-slack-api.js';

describe('fake Slack Web API', () => {
  let slack: FakeSlackApi;
  let client: WebClient;
  beforeEach(async () => {
    slack = await startFakeSlackApi();
    client = new WebClient('xoxb-test', { slackApiUrl: slack.url, retryConfig: { retries: 0 } });
  });
  afterEach(async () => {
    await slack.close();
  });

  it('records calls and enforces Slack limits like Slack does', async () => {
    const posted = await client.chat.postMessage({
      channel: 'C1',
      text: 'hi',
      blocks: [{ type: 'markdown', text: 'hi' }] as never,
    });
    expect(slack.callsTo('chat.postMessage')[0]!.args.blocks).toEqual([{ type: 'markdown', text: 'hi' }]);
    await expect(
      client.chat.update({ channel: 'C1', ts: posted.ts!, text: 'x'.repeat(4001) }),
    ).rejects.toMatchObject({
      data: { error: 'msg_too_long' },
    });
    const tooMany = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    await expect(
      client.chat.postMessage({ channel: 'C1', text: 'x', blocks: tooMany as never }),
    ).rejects.toMatchObject({
      data: { error: 'invalid_blocks' },
    });
    const markdownChild = [
      {
        type: 'container',
        title: { type: 'plain_text', text: 't' },
        child_blocks: [{ type: 'markdown', text: 'm' }],
      },
    ];
    await expect(
      client.chat.postMessage({ channel: 'C1', text: 'x', blocks: markdownChild as never }),
    ).rejects.toMatchObject({
      data: { error: 'invalid_blocks' },
    });
    const huge = [
      { type: 'markdown', text: 'a'.repeat(11_000) },
      { type: 'section', text: { type: 'mrkdwn', text: 'b'.repeat(2900) } },
    ];
    await expect(
      client.chat.postMessage({ channel: 'C1', text: 'x', blocks: huge as never }),
    ).rejects.toMatchObject({
      data: { error: 'msg_blocks_too_long' },
    });
    expect(slack.violations.map((v) => v.error)).toEqual([
      'msg_too_long',
      'invalid_blocks',
      'invalid_blocks',
      'msg_blocks_too_long',
    ]);
  });

  it('switches: streaming refused, containers rejected, 429 with Retry-After', async () => {
    slack.streamingError = 'feature_not_enabled';
    await expect(
      client.chat.startStream({ channel: 'D1', thread_ts: '1.1', markdown_text: 'x' }),
    ).rejects.toMatchObject({
      data: { error: 'feature_not_enabled' },
    });
    slack.rejectContainers = true;
    const container = [
      { type: 'container', title: { type: 'plain_text', text: 't' }, child_blocks: [{ type: 'divider' }] },
    ];
    await expect(
      client.chat.postMessage({ channel: 'C1', text: 'x', blocks: container as never }),
    ).rejects.toMatchObject({
      data: { error: 'invalid_blocks' },
    });
    slack.rateLimit('chat.postMessage', 1, 7);
    const limited = new WebClient('xoxb-test', { slackApiUrl: slack.url, rejectRateLimitedCalls: true });
    await expect(limited.chat.postMessage({ channel: 'C1', text: 'x' })).rejects.toMatchObject({
      retryAfter: 7,
    });
    expect(slack.calls.at(-1)!.status).toBe(429);
  });

  it('Tier 3: 50 chat.update per minute per workspace, then 429 with Retry-After; other methods and workspaces unaffected', async () => {
    const tiered = await startFakeSlackApi({ methodLimits: { 'chat.update': SLACK_TIER_3 } });
    try {
      const options = { slackApiUrl: tiered.url, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } };
      const one = new WebClient('xoxb-workspace-one', options);
      const two = new WebClient('xoxb-workspace-two', options);
      const posted = await one.chat.postMessage({ channel: 'C1', text: 'a' });
      for (let i = 0; i < 50; i++) await one.chat.update({ channel: 'C1', ts: posted.ts!, text: `v${i}` });
      const refused = await one.chat.update({ channel: 'C1', ts: posted.ts!, text: 'late' }).catch((e) => e);
      expect(refused).toMatchObject({ code: 'slack_webapi_rate_limited_error' });
      // The window frees a minute after the first call: Slack says so in whole seconds.
      expect(refused.retryAfter).toBeGreaterThanOrEqual(59);
      expect(refused.retryAfter).toBeLessThanOrEqual(60);
      expect(tiered.calls.at(-1)!.status).toBe(429);
      // The refused call changed nothing; posting and the other workspace still go through.
      expect(tiered.messages.get(`C1:${posted.ts}`)!.text).toBe('v49');
      await one.chat.postMessage({ channel: 'C1', text: 'b' });
      await two.chat.update({ channel: 'C1', ts: posted.ts!, text: 'other workspace' });
    } finally {
      await tiered.close();
    }
  });

  it('records edit times per message', async () => {
    const posted = await client.chat.postMessage({ channel: 'C1', text: 'a' });
    const before = Date.now();
    await client.chat.update({ channel: 'C1', ts: posted.ts!, text: 'b' });
    await client.chat.update({ channel: 'C1', ts: posted.ts!, text: 'c' });
    const after = Date.now();
    expect(slack.messages.get(`C1:${posted.ts}`)!.edits).toHaveLength(2);
    // The gap between the two edits: within the time the two calls took, however long that was.
    expect(slack.minEditGapMs()).toBeGreaterThanOrEqual(0);
    expect(slack.minEditGapMs()).toBeLessThanOrEqual(after - before);
  });

  it('signs requests the way Slack does', () => {
    const headers = signSlackRequest('body', 'secret', 1_700_000_000);
    const expected = createHmac('sha256', 'secret').update('v0:1700000000:body').digest('hex');
    expect(headers).toEqual({
      'X-Slack-Signature': `v0=${expected}`,
      'X-Slack-Request-Timestamp': '1700000000',
    });
  });
});
