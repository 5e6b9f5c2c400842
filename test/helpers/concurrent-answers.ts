/**
 * Many long cited answers at once in one Slack workspace, for the Tier 3 test and its benchmark
 * (issue 27 point 12): one top-level mention per channel, an agent turn that searches once and then
 * streams a long cited answer, and what "final" means on Slack — complete text, citations linked,
 * References, 👍/👎 on the last message and no Stop left anywhere.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: model requests and Slack blocks are open JSON
import type { Scout } from '../../src/core/scout.js';
import type { ScoutCore } from '../../src/surface.js';
import { longCitedAnswer } from '../render/markdown-samples.js';
import { type Script, textReply, toolCallReply } from './fake-openai-server.js';
import type { FakeSlackApi } from './fake-slack-api.js';
import { wrapCore } from './wrap-core.js';

export const ANSWERS_TEAM = 'T00FAKE00AA';
export const ANSWERS_BOT = 'U00FAKEBOT01';
/** Paragraphs of `longCitedAnswer` in about 40,000 characters (four of Slack's answer messages). */
export const PARAGRAPHS_40K = 300;

export interface AnswerThread {
  channel: string;
  ts: string;
  /** Scout's conversation id for the thread. */
  conversation: string;
  /** The Events API envelope of the mention (sign and post it to Bolt). */
  envelope: Record<string, unknown>;
}

/** A top-level mention in a channel of its own: each opens a thread Scout answers in. */
export function mentionThread(i: number): AnswerThread {
  const channel = `C${String(i).padStart(8, '0')}PACE`;
  const ts = `${1_767_000_000 + i}.000100`;
  return {
    channel,
    ts,
    conversation: `slack:${ANSWERS_TEAM}:${channel}:${ts}`,
    envelope: {
      token: 'x',
      team_id: ANSWERS_TEAM,
      api_app_id: 'A00FAKEAPP01',
      type: 'event_callback',
      event_id: `EvPace${i}${Date.now()}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ user_id: ANSWERS_BOT, is_bot: true }],
      event: {
        type: 'app_mention',
        user: `U${String(i).padStart(10, '0')}`,
        ts,
        event_ts: ts,
        channel,
        text: `<@${ANSWERS_BOT}> what changed in search this week (${i})?`,
      },
    },
  };
}

/**
 * The model's side of every turn: the function-call model (it is sent tools) searches once, then
 * says the results will do; the answer model streams `paragraphs` of a cited answer in `pieces`
 * chunks, `chunkDelayMs` apart.
 */
export function longAnswerModel(options: {
  paragraphs: number;
  pieces: number;
  chunkDelayMs: number;
}): (body: any) => Script {
  const answer = longCitedAnswer(options.paragraphs);
  const searched = new Set<string>();
  return (body) => {
    if (!body.tools?.length)
      return textReply(answer, { pieces: options.pieces, chunkDelayMs: options.chunkDelayMs });
    const question = /\((\d+)\)\?/.exec(JSON.stringify(body.messages))?.[1] ?? '';
    if (searched.has(question)) return textReply('The results answer it.');
    searched.add(question);
    return toolCallReply([{ name: 'web_search', arguments: { query: 'scout news' } }]);
  };
}

/**
 * The core, noting when it hands each turn's final view to the renderer (its model has finished) and,
 * with `arrivedAt`, when it got each turn's message.
 */
export function noteDone(
  scout: Scout,
  doneAt: Map<string, number>,
  arrivedAt?: Map<string, number>,
): ScoutCore {
  return wrapCore(scout, (sink, message) => {
    arrivedAt?.set(message.conversationId, Date.now());
    return {
      done: (view) => {
        doneAt.set(message.conversationId, Date.now());
        return sink.done(view);
      },
    };
  });
}

/**
 * Answers whose final landed before an older one's (by `arrivedAt`, the core getting the message)
 * by more than `sameMomentMs`: what a reader who reads the oldest first sees out of order.
 */
export function finalsOutOfOrder(
  threads: AnswerThread[],
  arrivedAt: Map<string, number>,
  finalAt: Map<string, number>,
  sameMomentMs: number,
  /** When each answer's model ended: an answer whose model ended first may land first. */
  doneAt?: Map<string, number>,
): string[] {
  const byArrival = [...threads].sort(
    (a, b) => arrivedAt.get(a.conversation)! - arrivedAt.get(b.conversation)!,
  );
  const finals = byArrival.map((t) => finalAt.get(t.channel)!);
  const done = byArrival.map((t) => doneAt?.get(t.conversation));
  const endedFirst = (i: number) => {
    const mine = done[i];
    const older = done[i - 1];
    return mine !== undefined && older !== undefined && mine < older;
  };
  return finals.flatMap((at, i) =>
    i > 0 && at < finals[i - 1]! - sameMomentMs && !endedFirst(i)
      ? [`answer ${i + 1} final ${finals[i - 1]! - at} ms before answer ${i}`]
      : [],
  );
}

/** Why a thread does not show its final answer yet, as a user sees it (undefined once it does). */
export function notFinal(slack: FakeSlackApi, thread: AnswerThread, paragraphs: number): string | undefined {
  const messages = slack.messagesIn(thread.channel, thread.ts);
  if (messages.length === 0) return 'no answer yet';
  if (JSON.stringify(messages.map((m) => m.blocks)).includes('scout_stop'))
    return 'a Stop button is still shown';
  if (!JSON.stringify(messages.at(-1)!.blocks).includes('scout_feedback_up')) return 'no 👍/👎 yet';
  // The answer: every message from the one it starts in (a steps message before it lists sources
  // as raw [n]; a native stream shows the steps as task cards in the answer's first message, and
  // its streamed text unless an edit after the stream replaced it with blocks).
  const markdownOf = (m: (typeof messages)[number]) => {
    const blocks = m.blocks.filter((b: any) => b.type === 'markdown').map((b: any) => b.text as string);
    return blocks.length > 0 || !m.streamedText ? blocks : [m.streamedText];
  };
  const first = messages.findIndex((m) => markdownOf(m).some((text) => text.includes('Paragraph 0:')));
  if (first === -1) return 'no answer text yet';
  const markdown = messages.slice(first).flatMap(markdownOf).join('\n');
  if (/(?<!\[)\[\d+\](?![\](])/.test(markdown)) return 'a raw [n] citation is shown';
  let from = 0;
  for (let i = 0; i < paragraphs; i++) {
    const at = markdown.indexOf(`Paragraph ${i}:`, from);
    if (at === -1) return `paragraph ${i} is missing`;
    from = at;
  }
  if (!markdown.includes('References')) return 'no References';
  return undefined;
}

/**
 * Polls until every thread shows its final answer (or `timeoutMs` passed); returns when each first
 * did, by channel.
 */
export async function watchFinals(
  slack: FakeSlackApi,
  threads: AnswerThread[],
  paragraphs: number,
  timeoutMs: number,
  pollMs = 10,
): Promise<Map<string, number>> {
  const finalAt = new Map<string, number>();
  const deadline = Date.now() + timeoutMs;
  while (finalAt.size < threads.length && Date.now() < deadline) {
    for (const t of threads)
      if (!finalAt.has(t.channel) && !notFinal(slack, t, paragraphs)) finalAt.set(t.channel, Date.now());
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return finalAt;
}
