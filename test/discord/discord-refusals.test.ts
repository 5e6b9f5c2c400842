/**
 * A thread Scout may open but not post in (Missing Permissions, 50013): the turn stops writing there
 * at the first refusal — Discord counts every refused call toward its invalid-request limit — and the
 * asker is told privately, by a DM from Scout (a turn never comes from a slash command, so there is no
 * interaction to answer ephemerally). A user who takes no DMs leaves one warning in the log. Nothing
 * is ever posted publicly instead.
 */
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import type { TurnEvent } from '../../src/render/events.js';
import type { IncomingMessage, TurnSink } from '../../src/surface.js';
import { describeWithShared } from '../helpers/fixtures.js';
import { fixtureMessage, type Kit, meta, ScriptedCore, startKit } from './discord-test-kit.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

/** A scripted core whose turns can be awaited: a search step, then an answer of several messages. */
class LongTurns extends ScriptedCore {
  readonly turns: Promise<void>[] = [];
  override script = (): TurnEvent[] => {
    const answer = Array.from(
      { length: 12 },
      (_, i) => `Paragraph ${i}. ${'Words that fill. '.repeat(30)}`,
    ).join('\n\n');
    return [
      { type: 'step-start', id: 's1', kind: 'search', title: 'Searching the web' },
      { type: 'step-finish', id: 's1', status: 'done' },
      ...Array.from(
        { length: 6 },
        (_, i): TurnEvent => ({
          type: 'text-delta',
          text: answer.slice((i * answer.length) / 6, ((i + 1) * answer.length) / 6),
        }),
      ),
      { type: 'answer', text: answer, sources: [] },
    ];
  };

  override handleMessage(message: IncomingMessage, sink: TurnSink): Promise<void> {
    const turn = super.handleMessage(message, sink);
    this.turns.push(turn);
    return turn;
  }
}

const WRITES = new Set([
  'POST /channels/:channel/messages',
  'PATCH /channels/:channel/messages/:message',
  'DELETE /channels/:channel/messages/:message',
  'POST /channels/:channel/typing',
]);

async function refusedTurn(options: { dmsClosed?: boolean } = {}) {
  const lines: string[] = [];
  const core = new LongTurns();
  kit = await startKit(core, {
    logger: pino({ level: 'warn' }, { write: (line: string) => lines.push(line) }),
  });
  const k = kit;
  const mention = fixtureMessage('gatewayMention');
  const asker = String(mention.author.id);
  // The mention's thread (Discord gives it the message's id) refuses Scout's messages.
  k.fake.refusedChannels.add(mention.id);
  if (options.dmsClosed) k.fake.closedDms.add(asker);
  // The turn goes on for a while after the refusal (a model still answering): long enough for a
  // typing indicator refreshed every 40 ms to show whether it stopped.
  core.gate = k.fake
    .waitFor(() => k.fake.calls.find((c) => c.status === 403 && c.route !== 'POST /channels/:channel/typing'))
    .then(() => new Promise((resolve) => setTimeout(resolve, 300)));
  k.fake.dispatch('MESSAGE_CREATE', mention);
  await k.fake.waitFor(() => core.turns.length > 0, 5_000, 'the turn to start');
  await Promise.all(core.turns);
  // What the turn did, a moment later (a DM or a late edit would show by then).
  await new Promise((resolve) => setTimeout(resolve, 200));
  const thread = mention.id as string;
  const inThread = k.fake.calls.filter(
    (c) => WRITES.has(c.route) && c.path.startsWith(`/channels/${thread}/`),
  );
  const dms = k.fake.calls.filter(
    (c) => c.route === 'POST /channels/:channel/messages' && k.fake.dmChannels.has(c.path.split('/')[2]!),
  );
  const elsewhere = k.fake.calls.filter(
    (c) =>
      c.route === 'POST /channels/:channel/messages' &&
      !c.path.startsWith(`/channels/${thread}/`) &&
      !k.fake.dmChannels.has(c.path.split('/')[2]!),
  );
  const warnings = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
  return { k, asker, thread, inThread, dms, elsewhere, warnings };
}

describeWithShared('Discord: a conversation Scout cannot post in', () => {
  it('stops at the first refusal and tells the asker by DM, never in public', async () => {
    const { k, asker, inThread, dms, elsewhere } = await refusedTurn();
    // The steps message and the first answer part may race to the first refusal; nothing after it.
    const refusedWrites = inThread.filter((c) => c.route !== 'POST /channels/:channel/typing');
    expect(refusedWrites.length).toBeGreaterThan(0);
    expect(refusedWrites.length).toBeLessThanOrEqual(2);
    expect(refusedWrites.every((c) => c.status === 403)).toBe(true);
    // The typing indicator needs Send Messages too: it stops with the first refused write, before
    // the DM to the asker is opened. Counted from that opening (refreshes sent before the refusal
    // was handled may still arrive after the refusal itself, more of them the busier the machine);
    // one may still be on its way.
    const dmOpened = k.fake.callsTo('POST /users/@me/channels')[0]!.at;
    const lateTyping = inThread.filter(
      (c) => c.route === 'POST /channels/:channel/typing' && c.at > dmOpened,
    );
    expect(lateTyping.length).toBeLessThanOrEqual(1);

    // One private notice, to the asker, saying why; no ping, no public message anywhere.
    expect(k.fake.callsTo('POST /users/@me/channels').map((c) => c.body.recipient_id)).toEqual([asker]);
    expect(dms).toHaveLength(1);
    expect(dms[0]!.status).toBe(200);
    expect(String(dms[0]!.body.content)).toContain('cannot post');
    expect(dms[0]!.allowedMentions?.parse).toEqual([]);
    expect(elsewhere).toEqual([]);
    expect(k.fake.messagesIn(meta.channelId)).toEqual([]);
  });

  it('a user who takes no DMs: the refusal is logged at warn, nothing else is sent', async () => {
    const { inThread, dms, elsewhere, warnings } = await refusedTurn({ dmsClosed: true });
    expect(inThread.filter((c) => c.route !== 'POST /channels/:channel/typing').length).toBeLessThanOrEqual(
      2,
    );
    // The one DM attempt is refused (50007); nothing is retried, nothing goes public.
    expect(dms.map((c) => c.status)).toEqual([403]);
    expect(elsewhere).toEqual([]);
    const said = warnings.filter((w) => w.level === 40).map((w) => w.msg);
    expect(said.filter((msg) => /refuses this turn/.test(msg))).toHaveLength(1);
    expect(said.filter((msg) => /could not tell the user privately/.test(msg))).toHaveLength(1);
  });
});
