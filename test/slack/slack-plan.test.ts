import { afterEach, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import { textReply } from '../helpers/fake-openai-server.js';
import {
  buttonPayload,
  dmFixture,
  type SlackHarness,
  startSlackHarness,
  visibleText,
} from './slack-harness.js';

const { mention } = dmFixture();
const channel = mention.event.channel as string;
const threadTs = mention.event.ts as string;
const conversation = `slack:${mention.team_id}:${channel}:${threadTs}`;
const plan = {
  steps: [
    { step: 1, description: 'Search the news', tool: 'web_search', parameters: { query: 'plan news' } },
  ],
};

describeWithShared('Slack plan mode', () => {
  let s: SlackHarness;
  afterEach(async () => {
    await s.close();
  });

  for (const [button, runs] of [
    ['scout_plan_run', true],
    ['scout_plan_cancel', false],
  ] as const) {
    it(`shows the plan with Run / Cancel and honours ${button}`, async () => {
      s = await startSlackHarness({ env: { DEFAULT_MODE: 'plan' } });
      s.h.llm.enqueue(textReply(JSON.stringify(plan)));
      s.h.llm.fallback = () => textReply('Plan summary [1].');
      await s.event(mention);
      const hasButtons = () =>
        s.slack
          .messagesIn(channel, threadTs)
          .find((m) => JSON.stringify(m.blocks).includes('scout_plan_run'));
      await s.slack.waitFor(() => Boolean(hasButtons()), 5000, 'the plan with buttons');
      const planMessage = hasButtons()!;
      expect(visibleText(planMessage.blocks)).toContain('Search the news');
      await s.action(buttonPayload(button, conversation, { channel, ts: planMessage.ts, threadTs }));
      await s.surface.idle();
      expect(JSON.stringify(planMessage.blocks)).not.toContain('scout_plan_run');
      const all = s.slack
        .messagesIn(channel, threadTs)
        .map((m) => visibleText(m.blocks))
        .join('\n');
      if (runs) {
        expect(all).toContain('Plan summary');
        expect(s.h.search.requests.length).toBeGreaterThan(0);
      } else {
        expect(all).not.toContain('Plan summary');
        expect(s.h.search.requests).toHaveLength(0);
      }
      expect(s.slack.violations).toEqual([]);
    });
  }
});
