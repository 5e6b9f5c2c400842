/**
 * A 429 storm on Discord message edits (real discord.js REST against the fake): the long cited
 * answer still lands whole, the same as without the storm, linked, with References and no Stop.
 */
import { afterEach, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { describeWithShared } from '../helpers/fixtures.js';
import { longCitedAnswer } from '../render/markdown-samples.js';
import { closeE2E, type E2E, finishedIn, fixtureMessage, startE2E } from './discord-test-kit.js';

const EDIT = 'PATCH /channels/:channel/messages/:message';

/** Every message after the steps message, joined; the footer's timings masked. */
const answerText = (e: E2E, channelId: string) =>
  e.fake
    .messagesIn(channelId)
    .slice(1)
    .map((m) => m.content)
    .join('\n')
    .replace(/\d+\.\d s\b/g, '#.# s');

async function runTurn(storm: boolean): Promise<{ env: E2E; channel: string }> {
  const env = await startE2E({ DEFAULT_MODE: 'agent' });
  env.harness.llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'scout news' } }]));
  env.harness.llm.fallback = () => textReply(longCitedAnswer(60), { chunkDelayMs: 2 });
  if (storm) env.fake.rateLimitStorm(EDIT, 30, 0.05);
  const mention = fixtureMessage('gatewayMention');
  env.fake.dispatch('MESSAGE_CREATE', mention);
  await finishedIn(env, mention.id, 30_000);
  // The steps message's last edit (Stop removed) may land after the answer's: the turn's end.
  await env.fake.waitFor(
    () => !JSON.stringify(env.fake.messagesIn(mention.id)[0]?.components).includes('scout_stop'),
    30_000,
    'the steps message without Stop',
  );
  return { env, channel: mention.id };
}

describeWithShared('Discord under a 429 storm on message edits', () => {
  const open: E2E[] = [];
  afterEach(async () => {
    for (const e of open.splice(0)) await closeE2E(e);
  });

  it('30 × 429 in a row: the long cited answer still lands whole, linked, with References and no Stop', async () => {
    const calm = await runTurn(false);
    open.push(calm.env);
    const stormy = await runTurn(true);
    open.push(stormy.env);

    const edits = stormy.env.fake.calls.filter((c) => c.route === EDIT);
    expect(edits.filter((c) => c.status === 429)).toHaveLength(30);
    expect(edits.slice(0, 30).every((c) => c.status === 429)).toBe(true);

    const expected = answerText(calm.env, calm.channel);
    expect(expected).toContain('Paragraph 59');
    const shown = answerText(stormy.env, stormy.channel);
    expect(shown).toBe(expected);
    const messages = stormy.env.fake.messagesIn(stormy.channel);
    expect(messages.length).toBeGreaterThan(2);
    // Every citation is a link; none is left raw; References and balanced fences.
    expect(shown).toMatch(/\[\[?1\]?\]\(<?https:\/\/example\.com\/scout-news\/1/);
    expect(shown).not.toMatch(/(?<!\[)\[\d+\](?![\](])/);
    expect(shown).toContain('References');
    expect(shown.match(/```/g)!.length % 2).toBe(0);
    // Finished: no Stop anywhere, 👍/👎 on the last message only.
    for (const m of messages) expect(JSON.stringify(m.components)).not.toContain('scout_stop');
    const withFeedback = messages.filter((m) => JSON.stringify(m.components).includes('scout_feedback:'));
    expect(withFeedback).toEqual([messages.at(-1)]);
  }, 90_000);
});
