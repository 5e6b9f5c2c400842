import { afterEach, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import { textReply } from '../helpers/fake-openai-server.js';
import {
  dmThread,
  type SlackHarness,
  startSlackHarness,
  threadText,
  visibleText,
  waitForButton,
} from './slack-harness.js';

const thread = dmThread();
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
      await s.event(thread.mention);
      const { message: planMessage, press } = await waitForButton(
        s,
        thread,
        'scout_plan_run',
        'the plan with buttons',
      );
      expect(visibleText(planMessage.blocks)).toContain('Search the news');
      await press({ actionId: button });
      await s.surface.idle();
      expect(JSON.stringify(planMessage.blocks)).not.toContain('scout_plan_run');
      const all = threadText(s, thread);
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
