/**
 * Issue 27 point 12: chat.update is Tier 3 — about 50 calls per minute per workspace, whatever the
 * channel. Sixteen long cited answers at once in one workspace, through the real Bolt app and
 * renderer, against a fake Web API that enforces that limit the way Slack does (HTTP 429 with
 * Retry-After, on a time base shrunk like the surface's edit interval). Every answer must end
 * final — complete, citations linked, no Stop left — within a bound, with almost no 429s: Scout
 * paces the workspace's edits itself instead of letting Slack refuse them.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: recorded Slack calls are open JSON
import { afterEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { SLACK_TIER_3 } from '../helpers/fake-slack-api.js';
import { longCitedAnswer } from '../render/markdown-samples.js';
import { type SlackHarness, startSlackHarness, visibleText } from './slack-harness.js';

const TEAM = 'T00FAKE00AA';
const BOT = 'U00FAKEBOT01';
const ANSWERS = 16;
/** About 40,000 characters: four messages of Slack's answer size each. */
const PARAGRAPHS = 300;
/** The surface's edit interval: a tenth of Slack's second, so Slack's minute is 6 s here. */
const EDIT_INTERVAL_MS = 100;
const SCALE = EDIT_INTERVAL_MS / 1000;
const TIER_3 = { max: SLACK_TIER_3.max, perMs: SLACK_TIER_3.perMs * SCALE };
/** Share of chat.update calls Slack may refuse (it was 82 % before the workspace was paced). */
const MAX_REFUSED_SHARE = 0.05;
/** Slack time beyond what Tier 3 needs for the final edits themselves (a loaded machine, the last part). */
const MARGIN_MS = 30_000 * SCALE;

/** A top-level mention in its own channel: each opens a thread Scout answers in. */
function mention(i: number) {
  const channel = `C${String(i).padStart(8, '0')}PACE`;
  const ts = `${1_767_000_000 + i}.000100`;
  return {
    channel,
    ts,
    envelope: {
      token: 'x',
      team_id: TEAM,
      api_app_id: 'A00FAKEAPP01',
      type: 'event_callback',
      authorizations: [{ user_id: BOT, is_bot: true }],
      event: {
        type: 'app_mention',
        user: `U${String(i).padStart(10, '0')}`,
        ts,
        event_ts: ts,
        channel,
        text: `<@${BOT}> what changed in search this week (${i})?`,
      },
    },
  };
}

/** Why a thread does not show its final answer yet (undefined once it does). */
function notFinal(s: SlackHarness, channel: string, ts: string): string | undefined {
  const messages = s.slack.messagesIn(channel, ts);
  if (messages.length < 2) return 'no answer yet';
  const json = JSON.stringify(messages.map((m) => m.blocks));
  if (json.includes('scout_stop')) return 'a Stop button is still shown';
  if (!JSON.stringify(messages.at(-1)!.blocks).includes('scout_feedback_up')) return 'no 👍/👎 yet';
  const markdown = messages
    .slice(1)
    .flatMap((m) => m.blocks.filter((b: any) => b.type === 'markdown').map((b: any) => b.text as string))
    .join('\n');
  if (/(?<!\[)\[\d+\](?![\](])/.test(markdown)) return 'a raw [n] citation is shown';
  let from = 0;
  for (let i = 0; i < PARAGRAPHS; i++) {
    const at = markdown.indexOf(`Paragraph ${i}:`, from);
    if (at === -1) return `paragraph ${i} is missing`;
    from = at;
  }
  if (!messages.slice(1).some((m) => visibleText(m.blocks).includes('References'))) return 'no References';
  return undefined;
}

describe('Slack: sixteen long answers at once under Tier 3 (chat.update 50 per minute per workspace)', () => {
  let s: SlackHarness | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('every answer lands final, one after the other, within what Tier 3 allows; Slack refuses almost no update', async () => {
    // When the core handed each turn's final view to the renderer (its model had finished).
    const doneAt = new Map<string, number>();
    s = await startSlackHarness({
      env: { DEFAULT_MODE: 'agent', LLM_TIMEOUT_MS: '30000' },
      editIntervalMs: EDIT_INTERVAL_MS,
      fake: { botUserId: BOT, teamId: TEAM, methodLimits: { 'chat.update': TIER_3, 'chat.delete': TIER_3 } },
      core: (scout) => ({
        get locale() {
          return scout.locale;
        },
        handleMessage: (message, sink) =>
          scout.handleMessage(message, {
            update: (view) => sink.update(view),
            reply: (text) => sink.reply(text),
            done: (view) => {
              doneAt.set(message.conversationId, Date.now());
              return sink.done(view);
            },
          }),
        runCommand: (name, args, context) => scout.runCommand(name, args, context),
        cancel: (id) => scout.cancel(id),
        firstDelivery: (key, ttl) => scout.firstDelivery(key, ttl),
        getSettings: (id) => scout.getSettings(id),
      }),
    });
    // Each turn searches once (the function-call model, which is sent tools), then the answer model
    // streams its long cited answer over about 2 s (20 of Slack's seconds).
    const searched = new Set<string>();
    s.h.llm.fallback = (body: any) => {
      if (!body.tools?.length)
        return textReply(longCitedAnswer(PARAGRAPHS), { pieces: 100, chunkDelayMs: 20 });
      const question = /\((\d+)\)\?/.exec(JSON.stringify(body.messages))?.[1] ?? '';
      if (searched.has(question)) return textReply('The results answer it.');
      searched.add(question);
      return toolCallReply([{ name: 'web_search', arguments: { query: 'scout news' } }]);
    };

    const threads = Array.from({ length: ANSWERS }, (_, i) => mention(i));
    const acks = await Promise.all(threads.map((t) => s!.event(t.envelope)));
    expect(acks.map((r) => r.status)).toEqual(threads.map(() => 200));

    // When each thread first showed its final answer, as a user would see it.
    const finalAt = new Map<string, number>();
    const deadline = Date.now() + 200_000 * SCALE;
    while (finalAt.size < ANSWERS && Date.now() < deadline) {
      for (const t of threads)
        if (!finalAt.has(t.channel) && !notFinal(s, t.channel, t.ts)) finalAt.set(t.channel, Date.now());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const pending = threads.flatMap((t) => {
      const why = finalAt.has(t.channel) ? undefined : notFinal(s!, t.channel, t.ts);
      return why ? [`${t.channel}: ${why}`] : [];
    });
    expect(pending).toEqual([]);
    await s.surface.idle();

    // Time to final of each answer: from its model's end to its final state on Slack.
    const conversation = (t: (typeof threads)[number]) => `slack:${TEAM}:${t.channel}:${t.ts}`;
    const toFinal = threads
      .map((t) => finalAt.get(t.channel)! - doneAt.get(conversation(t))!)
      .sort((a, b) => a - b);
    // Tier 3 lets one edit through every 1.2 s: the bound is one final edit per message shown.
    const shown = threads.reduce((n, t) => n + s!.slack.messagesIn(t.channel, t.ts).length, 0);
    const bound = (shown * TIER_3.perMs) / TIER_3.max + MARGIN_MS;
    expect(toFinal.at(-1)).toBeLessThan(bound);
    // Finals go by turn: half the answers are final in half that time, not all at the very end.
    expect(toFinal[ANSWERS / 2 - 1]).toBeLessThan(bound / 2);

    const updates = s.slack.callsTo('chat.update');
    const refused = updates.filter((c) => c.status === 429).length;
    expect(refused / updates.length).toBeLessThan(MAX_REFUSED_SHARE);
    expect(s.slack.violations).toEqual([]);
    // Still final once every write settled: nothing older landed afterwards.
    expect(threads.filter((t) => notFinal(s!, t.channel, t.ts))).toEqual([]);
  }, 240_000);
});
