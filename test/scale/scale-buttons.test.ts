/**
 * Buttons across instances (issue 8): a Stop or plan Run press reaches whichever instance Slack picks,
 * not necessarily the one running the turn; Stop stays the asker's (or an admin's) there too. Skipped without REDIS_URL; fails when it is set but down.
 */
import { describe, expect, it } from 'vitest';
import { conversationId } from '../../adapters/slack/ids.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { buttonPayload, visibleText } from '../slack/slack-harness.js';
import { CHANNEL, type Cluster, lastUserText, mention, nextTs, TEAM_ID, useCluster } from './scale-kit.js';

const PLAN = {
  steps: [
    { step: 1, description: 'Search the news', tool: 'web_search', parameters: { query: 'plan news' } },
  ],
};
/**
 * How long a test waits for a relayed press to take effect before it gives up (the relay polls every
 * 250 ms): it bounds a failure, not how fast a busy machine must be.
 */
const RELAY_GIVE_UP_MS = 15_000;

/**
 * The answer that gets stopped: its first words stream (its message, with the Stop button, is up),
 * the rest is held until `release()`, so it cannot end before the Stop lands however slow the relay.
 */
function heldAnswer() {
  let release!: () => void;
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    script: { ...textReply('A long answer that takes its time to arrive.'), holdAt: { index: 2, until } },
    release: () => release(),
  };
}

/** Presses Stop (on whichever instance `press` uses), waits for the thread to say so, then lets the answer go. */
async function pressStop(
  c: Cluster,
  press: () => Promise<unknown>,
  threadTs: string,
  answer: { release(): void },
): Promise<void> {
  try {
    await press();
    await c.slack.waitFor(
      () => threadText(c, threadTs).includes('Stopped'),
      RELAY_GIVE_UP_MS,
      'the stopped turn',
    );
  } finally {
    answer.release();
  }
}

function threadText(c: Cluster, threadTs: string): string {
  return c.slack
    .messagesIn(CHANNEL, threadTs)
    .map((m) => visibleText(m.blocks))
    .join('\n');
}

function messageWithButton(c: Cluster, threadTs: string, actionId: string) {
  return c.slack.messagesIn(CHANNEL, threadTs).find((m) => JSON.stringify(m.blocks).includes(actionId));
}

describe.skipIf(!process.env.REDIS_URL)('scale-out: buttons pressed on another instance', () => {
  const c = useCluster();

  it('runs a plan waiting on instance A when Run is pressed on instance B', async () => {
    const env = { DEFAULT_MODE: 'plan' };
    const [a, b] = await Promise.all([c.startInstance('A', { env }), c.startInstance('B', { env })]);
    c.llm.enqueue(textReply(JSON.stringify(PLAN)));
    c.llm.fallback = () => textReply('Plan summary [1].');
    const ts = nextTs();
    await a.post(mention('EvPLAN0001', 'plan something', { ts }));
    await c.slack.waitFor(() => Boolean(messageWithButton(c, ts, 'scout_plan_run')), 5_000, 'plan buttons');
    const planMessage = messageWithButton(c, ts, 'scout_plan_run')!;

    const conversation = conversationId(TEAM_ID, CHANNEL, ts);
    const res = await b.action(
      buttonPayload('scout_plan_run', conversation, { channel: CHANNEL, ts: planMessage.ts }),
    );
    expect(res.status).toBe(200);
    await c.slack.waitFor(() => threadText(c, ts).includes('Plan summary'), RELAY_GIVE_UP_MS, 'the plan ran');
    expect(c.search.requests.length).toBeGreaterThan(0);
    expect(JSON.stringify(planMessage.blocks)).not.toContain('scout_plan_run');

    // The conversation is free again: a follow-up on B reaches the model.
    await a.surface.idle();
    await b.post(mention('EvPLAN0002', 'thanks', { threadTs: ts }));
    await c.slack.waitFor(
      () => c.proxy.exchanges.some((x) => lastUserText(x.body).includes('thanks')),
      5_000,
      'the follow-up request',
    );
  });

  it('stops a turn running on instance A when Stop is pressed on instance B', async () => {
    const [a, b] = await Promise.all([c.startInstance('A'), c.startInstance('B')]);
    const answer = heldAnswer();
    c.llm.fallback = answer.script;
    const ts = nextTs();
    await a.post(mention('EvSTOP0001', 'a very long question', { ts }));
    await c.slack.waitFor(() => c.proxy.exchanges.length === 1, 5_000, 'the model request');
    await c.slack.waitFor(() => Boolean(messageWithButton(c, ts, 'scout_stop')), 5_000, 'a Stop button');
    const stopMessage = messageWithButton(c, ts, 'scout_stop')!;

    const conversation = conversationId(TEAM_ID, CHANNEL, ts);
    const press = buttonPayload('scout_stop', conversation, {
      channel: CHANNEL,
      ts: stopMessage.ts,
      threadTs: ts,
    });
    await pressStop(c, () => b.action(press), ts, answer);
    await a.surface.idle();
    expect(threadText(c, ts)).not.toContain('takes its time to arrive');
    expect(c.slack.callsTo('chat.postEphemeral')).toHaveLength(0);

    // Nothing runs anywhere now: the press is answered "nothing to stop", not left for a later turn.
    await b.action(press);
    await c.slack.waitFor(
      () => c.slack.callsTo('chat.postEphemeral').length === 1,
      RELAY_GIVE_UP_MS,
      'the nothing-to-stop reply',
    );
    expect(c.slack.callsTo('chat.postEphemeral')[0]!.args.text).toContain('Nothing is running');
    c.llm.fallback = (body) => textReply(`Answer to: ${lastUserText(body)}`);
    await a.post(mention('EvSTOP0002', 'next one', { threadTs: ts }));
    await c.slack.waitFor(() => threadText(c, ts).includes('Answer to: next one'), 5_000, 'the next answer');
  });

  it("refuses another user's Stop on instance B for a turn on A, and relays an admin's", async () => {
    const env = { ADMIN_USERS: 'U00ADMINUSR1' };
    const [a, b] = await Promise.all([c.startInstance('A', { env }), c.startInstance('B', { env })]);
    const answer = heldAnswer();
    c.llm.fallback = answer.script;
    const ts = nextTs();
    await a.post(mention('EvOWNR0001', 'a very long question', { ts }));
    await c.slack.waitFor(() => Boolean(messageWithButton(c, ts, 'scout_stop')), 5_000, 'a Stop button');
    const conversation = conversationId(TEAM_ID, CHANNEL, ts);
    const at = { channel: CHANNEL, ts: messageWithButton(c, ts, 'scout_stop')!.ts, threadTs: ts };

    await b.action(buttonPayload('scout_stop', conversation, { ...at, user: 'U00OTHERUSR1' }));
    await c.slack.waitFor(
      () => c.slack.callsTo('chat.postEphemeral').length === 1,
      RELAY_GIVE_UP_MS,
      'the refusal',
    );
    expect(c.slack.callsTo('chat.postEphemeral')[0]!.args).toMatchObject({
      user: 'U00OTHERUSR1',
      text: 'Only the person who asked (or an admin) can stop this answer.',
    });
    // Nothing was relayed: a few relay polls later the turn still runs.
    await new Promise((resolve) => setTimeout(resolve, 3 * 250));
    expect(threadText(c, ts)).not.toContain('Stopped');

    await pressStop(
      c,
      () => b.action(buttonPayload('scout_stop', conversation, { ...at, user: 'U00ADMINUSR1' })),
      ts,
      answer,
    );
    await a.surface.idle();
    expect(threadText(c, ts)).not.toContain('takes its time to arrive');
    expect(c.slack.callsTo('chat.postEphemeral')).toHaveLength(1);
  });
});
