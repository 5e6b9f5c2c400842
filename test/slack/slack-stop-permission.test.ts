/**
 * Stop (and the plan's Run / Cancel) belong to the person who asked, or to an admin: anyone else
 * gets an ephemeral refusal and the turn carries on.
 */
import { afterEach, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import { textReply } from '../helpers/fake-openai-server.js';
import {
  dmThread,
  OTHER_USER,
  type SlackHarness,
  startSlackHarness,
  threadText as textOf,
  waitForButton,
} from './slack-harness.js';

const thread = dmThread();
const { channel, threadTs, asker } = thread;
const ADMIN_USER = 'U00ADMINUSR1';
/** The answer streams for ~2 s: long enough to press Stop while it runs. */
const SLOW_ANSWER = { ...textReply('slow '.repeat(20)), chunkDelayMs: 100 };

function threadText(s: SlackHarness): string {
  return textOf(s, thread);
}

/** Starts a slow turn asked by the fixture user and presses Stop on it as `presser`. */
async function pressStopAs(s: SlackHarness, presser: string): Promise<void> {
  s.h.llm.enqueue(SLOW_ANSWER);
  await s.event(thread.mention);
  const { press } = await waitForButton(s, thread, 'scout_stop', 'a message with a Stop button');
  const res = await press({ user: presser });
  expect(res.status).toBe(200);
  await s.surface.idle();
}

describeWithShared('Slack Stop: only the asker or an admin', () => {
  let s: SlackHarness;
  afterEach(async () => {
    await s.close();
  });

  it("refuses another user's Stop ephemerally and the answer completes", async () => {
    s = await startSlackHarness({ env: { ADMIN_USERS: ADMIN_USER } });
    await pressStopAs(s, OTHER_USER);
    const refusals = s.slack.callsTo('chat.postEphemeral');
    expect(refusals).toHaveLength(1);
    expect(refusals[0]!.args).toMatchObject({ channel, user: OTHER_USER, thread_ts: threadTs });
    expect(refusals[0]!.args.text).toBe('Only the person who asked (or an admin) can stop this answer.');
    expect(threadText(s)).toContain('slow slow slow');
    expect(threadText(s)).not.toMatch(/Stopped/);
  });

  it("cancels on the asker's Stop", async () => {
    s = await startSlackHarness({ env: { ADMIN_USERS: ADMIN_USER } });
    await pressStopAs(s, asker);
    expect(s.slack.callsTo('chat.postEphemeral')).toHaveLength(0);
    expect(threadText(s)).toMatch(/Stopped/);
    expect(threadText(s)).not.toContain('slow slow slow slow slow slow slow slow slow slow slow slow');
  });

  it("cancels on an admin's Stop", async () => {
    s = await startSlackHarness({ env: { ADMIN_USERS: `U00SOMEONE01,${ADMIN_USER}` } });
    await pressStopAs(s, ADMIN_USER);
    expect(s.slack.callsTo('chat.postEphemeral')).toHaveLength(0);
    expect(threadText(s)).toMatch(/Stopped/);
  });

  it("refuses another user's plan Run; the asker's Run then runs it", async () => {
    s = await startSlackHarness({ env: { DEFAULT_MODE: 'plan' } });
    const plan = {
      steps: [{ step: 1, description: 'Search', tool: 'web_search', parameters: { query: 'plan news' } }],
    };
    s.h.llm.enqueue(textReply(JSON.stringify(plan)));
    s.h.llm.fallback = () => textReply('Plan summary [1].');
    await s.event(thread.mention);
    const { press } = await waitForButton(s, thread, 'scout_plan_run', 'the plan with buttons');
    await press({ user: OTHER_USER });
    await s.slack.waitFor(() => s.slack.callsTo('chat.postEphemeral').length === 1, 5000, 'the refusal');
    expect(s.slack.callsTo('chat.postEphemeral')[0]!.args.text).toContain('run or cancel this plan');
    expect(s.h.search.requests).toHaveLength(0);
    await press({ user: asker });
    await s.surface.idle();
    expect(threadText(s)).toContain('Plan summary');
  });
});
