/**
 * Model output can never ping anyone on Slack: an agent turn whose search query, reasoning, plan and
 * answer are full of `<!channel>`, `@here`, `<@U…>` and `<!subteam^…>` goes through the real core and
 * Bolt app, and every string Scout sent to the Web API (fallback `text` included, which is what
 * notifications show; native-stream task cards too) is scanned for a live mention.
 */
import { afterEach, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import { renderPlanPart, renderSteps } from '../../adapters/slack/render-blocks.js';
import { toTaskCard } from '../../adapters/slack/native-stream.js';
import { buildHomeView } from '../../adapters/slack/home-view.js';
import { emptyView } from '../../src/render/view.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { dmFixture, type SlackHarness, startSlackHarness } from './slack-harness.js';

const PINGS = '<!channel> <!here> @everyone @here <@U0ALICE01> <!subteam^S123|team>';
/** A Slack mention token or a broadcast word that Slack would turn into a notification. */
const LIVE_MENTION = /<[!@]|(^|[^\w\u200B])@(channel|here|everyone)\b/i;

/** Every string value in a call's arguments (the auth token excepted). */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) if (k !== 'token') strings(v, out);
  }
  return out;
}

function expectInert(value: unknown, where: string): void {
  for (const text of strings(value)) expect(text, `${where}: ${text}`).not.toMatch(LIVE_MENTION);
}

describeWithShared('Slack: nothing Scout sends can ping', () => {
  let s: SlackHarness | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  for (const nativeStreaming of [false, true]) {
    it(`an agent turn full of mentions (native streaming ${nativeStreaming ? 'on' : 'off'})`, async () => {
      s = await startSlackHarness({ env: { DEFAULT_MODE: 'agent' }, nativeStreaming });
      s.h.llm.enqueue(
        toolCallReply([{ name: 'web_search', arguments: { query: `news ${PINGS}` } }], {
          reasoning: `Thinking about ${PINGS}`,
        }),
      );
      s.h.llm.fallback = () => textReply(`Here you go ${PINGS} [1].`);
      const { mention } = dmFixture();
      await s.event(mention);
      await s.surface.idle();
      const sent = s.slack.calls.filter((c) => /^chat\./.test(c.method));
      expect(sent.length).toBeGreaterThan(1);
      for (const call of sent) expectInert(call.args, call.method);
    });
  }

  it('builders: steps fallback text, plan text, task cards and the App Home notice', () => {
    const view = emptyView();
    view.steps.push({
      id: 's1',
      kind: 'search',
      title: `🔍 Searching: ${PINGS}`,
      body: `[1] Title ${PINGS}\nhttps://example.com/a`,
      status: 'running',
      collapsed: false,
    });
    const options = { locale: 'en' as const, conversationId: 'c', containers: false, expanded: true };
    expectInert(renderSteps(view, options), 'steps');
    expectInert(renderSteps(view, { ...options, containers: true }), 'steps (containers)');
    expectInert(renderPlanPart(`1. Ask ${PINGS}`, 'choose', { locale: 'en', conversationId: 'c' }), 'plan');
    expectInert(toTaskCard(view.steps[0]!, []), 'task card');
    expectInert(buildHomeView('en', undefined, undefined, `⚠️ unknown provider "${PINGS}"`), 'home');
  });
});
