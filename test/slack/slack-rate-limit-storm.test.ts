// biome-ignore-all lint/suspicious/noExplicitAny: recorded Slack calls are open JSON
import { afterEach, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { describeWithShared } from '../helpers/fixtures.js';
import { longCitedAnswer } from '../render/markdown-samples.js';
import { dmFixture, type SlackHarness, startSlackHarness, visibleText } from './slack-harness.js';

const { mention } = dmFixture();
const channel = mention.event.channel as string;
const threadTs = mention.event.ts as string;

/** The answer messages' visible text (everything after the steps message), in order; timings masked. */
function answerText(s: SlackHarness): string {
  const [, ...answer] = s.slack.messagesIn(channel, threadTs);
  return answer
    .map((m) => visibleText(m.blocks))
    .join('\n')
    .replace(/\d+\.\d s\b/g, '#.# s');
}

async function runTurn(storm: boolean): Promise<SlackHarness> {
  const s = await startSlackHarness({ env: { DEFAULT_MODE: 'agent' } });
  s.h.llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'scout news' } }]));
  s.h.llm.fallback = () => textReply(longCitedAnswer(70), { chunkDelayMs: 2 });
  // Slack's Retry-After is whole seconds; 0 keeps the test fast while every call is still refused.
  if (storm) s.slack.rateLimit('chat.update', 30, 0);
  await s.event(mention);
  await s.surface.idle();
  return s;
}

describeWithShared('Slack classic path under a 429 storm on chat.update', () => {
  const open: SlackHarness[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });

  it('30 × 429 in a row: the long cited answer still lands whole, linked, with References and no Stop', async () => {
    const calm = await runTurn(false);
    open.push(calm);
    const stormy = await runTurn(true);
    open.push(stormy);

    const updates = stormy.slack.callsTo('chat.update');
    expect(updates.slice(0, 30).every((c) => c.status === 429)).toBe(true);
    expect(updates.length).toBeGreaterThan(30);

    const expected = answerText(calm);
    expect(expected).toContain('Paragraph 69');
    expect(answerText(stormy)).toBe(expected);

    const messages = stormy.slack.messagesIn(channel, threadTs);
    const markdown = messages
      .slice(1)
      .flatMap((m) => m.blocks.filter((b: any) => b.type === 'markdown').map((b: any) => b.text as string))
      .join('\n');
    // Every citation is a link; none is left raw.
    expect(markdown).toContain('[[1]](https://example.com/scout-news/1)');
    expect(markdown).not.toMatch(/(?<!\[)\[\d+\](?![\](])/);
    expect(answerText(stormy)).toContain('References');
    expect(answerText(stormy).match(/```/g)?.length).toBe(2);
    // Finished: no Stop anywhere, 👍/👎 on the last message only.
    for (const m of messages) expect(JSON.stringify(m.blocks)).not.toContain('scout_stop');
    const withFeedback = messages.filter((m) => JSON.stringify(m.blocks).includes('scout_feedback_up'));
    expect(withFeedback).toEqual([messages.at(-1)]);
    expect(stormy.slack.violations).toEqual([]);
  }, 60_000);
});
