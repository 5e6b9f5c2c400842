/**
 * A channel where Scout may read but not post: Slack answers every write with `not_in_channel`.
 * The turn must stop at the first refusal (no storm of failing calls) and tell the asker privately —
 * never by posting elsewhere in public.
 */
import { afterEach, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { describeWithShared } from '../helpers/fixtures.js';
import { type SlackHarness, startSlackHarness, threadFixture } from './slack-harness.js';

describeWithShared('Slack refused writes', () => {
  let s: SlackHarness;
  afterEach(async () => {
    await s.close();
  });

  it('a turn in a channel Scout cannot post in stops at the first refusal and tells the asker by DM', async () => {
    const fx = threadFixture();
    const channel = fx.mention.event.channel as string;
    s = await startSlackHarness({ env: { DEFAULT_MODE: 'agent' } });
    s.slack.refusedChannels.add(channel);
    s.h.llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'scout news' } }]));
    s.h.llm.fallback = () => textReply(`A long answer. ${'More text follows here. '.repeat(600)}`);
    await s.event({ ...fx.mention, event: { ...fx.mention.event, type: 'app_mention' } });
    await s.surface.idle();

    const writesThere = s.slack.calls.filter(
      (c) =>
        c.args.channel === channel &&
        ['chat.postMessage', 'chat.update', 'chat.delete', 'chat.postEphemeral'].includes(c.method),
    );
    // The steps message and the first answer part may race to the first refusal; nothing after it.
    expect(writesThere.length).toBeLessThanOrEqual(2);
    // Not even an ephemeral: it needs Scout in the channel too, so it would only be refused again.
    expect(s.slack.callsTo('chat.postEphemeral')).toEqual([]);
    const dms = s.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === fx.mention.event.user);
    expect(dms).toHaveLength(1);
    expect(String(dms[0]!.args.text)).toContain('cannot post');
    expect(s.slack.messagesIn(channel)).toEqual([]);
  });
});
