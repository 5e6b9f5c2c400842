/**
 * ALLOWED_USERS / BLOCKED_USERS through the real Bolt app against the fake Slack API: a refused user's
 * mention gets no answer and leaves no trace; an allowed user is answered; a refused user's slash
 * command and button press get one private note, never an answer.
 */
import { afterEach, expect, it } from 'vitest';
import { textReply } from '../helpers/fake-openai-server.js';
import { describeWithShared } from '../helpers/fixtures.js';
import {
  buttonPayload,
  type SlackHarness,
  slashFixture,
  startSlackHarness,
  threadFixture,
} from './slack-harness.js';

describeWithShared('Slack access lists', () => {
  let s: SlackHarness;
  afterEach(async () => {
    await s.close();
  });

  const mention = () => {
    const fx = threadFixture();
    return { ...fx.mention, event: { ...fx.mention.event, type: 'app_mention' } };
  };
  const botWrites = () =>
    s.slack.calls.filter((c) =>
      ['chat.postMessage', 'chat.startStream', 'chat.postEphemeral', 'assistant.threads.setStatus'].includes(
        c.method,
      ),
    );

  it('a blocked user gets no answer and no trace, and the model is never called', async () => {
    const m = mention();
    s = await startSlackHarness({ env: { BLOCKED_USERS: `U00OTHER0001,${m.event.user}` } });
    s.h.llm.fallback = () => textReply('should not be sent');
    await s.event(m);
    await s.surface.idle();
    await new Promise((r) => setTimeout(r, 200));
    expect(s.h.llm.requests).toHaveLength(0);
    expect(botWrites()).toEqual([]);
  });

  it('BLOCKED_USERS wins over ALLOWED_USERS', async () => {
    const m = mention();
    s = await startSlackHarness({ env: { ALLOWED_USERS: m.event.user, BLOCKED_USERS: m.event.user } });
    await s.event(m);
    await s.surface.idle();
    expect(s.h.llm.requests).toHaveLength(0);
  });

  it('a user in ALLOWED_USERS is answered; anyone else is not', async () => {
    const m = mention();
    s = await startSlackHarness({ env: { ALLOWED_USERS: m.event.user } });
    s.h.llm.enqueue(textReply('Allowed answer.'));
    await s.event(m);
    await s.surface.idle();
    expect(s.h.llm.requests).toHaveLength(1);
    await s.slack.waitFor(
      () =>
        s.slack
          .messagesIn(m.event.channel)
          .some((x) => (x.text + x.streamedText).includes('Allowed answer.')),
      5000,
      'the answer',
    );

    const other = { ...m, event: { ...m.event, user: 'U00STRANGER1', ts: '1999999999.000100' } };
    await s.event(other);
    await s.surface.idle();
    expect(s.h.llm.requests).toHaveLength(1);
  });

  it("a refused user's slash command and button press get a private note, nothing else", async () => {
    const fields = slashFixture().slashCommand;
    s = await startSlackHarness({ env: { BLOCKED_USERS: fields.user_id! } });
    await s.command({ ...fields, command: '/mode', text: 'agent' });
    await s.slack.waitFor(() => s.slack.callsTo('chat.postEphemeral').length === 1, 3000, 'the command note');
    expect(s.slack.callsTo('chat.postEphemeral')[0]!.args.text).toBe('You do not have access to Scout here.');
    expect((await s.h.scout.getSettings(`slack:${fields.team_id}:${fields.channel_id}`)).mode).toBe('chat');

    await s.action(
      buttonPayload('scout_stop', 'slack:x', { channel: 'C0BUTTONS', ts: '1.000001', user: fields.user_id }),
    );
    await s.slack.waitFor(() => s.slack.callsTo('chat.postEphemeral').length === 2, 3000, 'the button note');
    expect(s.slack.callsTo('chat.postEphemeral')[1]!.args.text).toBe('You do not have access to Scout here.');
    expect(s.slack.callsTo('chat.postEphemeral')[1]!.args.channel).toBe('C0BUTTONS');
  });
});
