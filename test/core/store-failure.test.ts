/**
 * A store that stops taking writes (here: a read-only SQLite file) never makes a message vanish:
 * Slack and Discord get a visible reply, and an answer already shown says it was not saved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TurnView } from '../../src/render/view.js';
import type { IncomingMessage, TurnSink } from '../../src/surface.js';
import { ScriptedCore, fixtureMessage, meta, startKit } from '../discord/discord-test-kit.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { itWithShared } from '../helpers/fixtures.js';
import { type ReadOnlySqlite, openReadOnlySqlite } from '../helpers/read-only-sqlite.js';
import { startTestScout } from '../helpers/scout-harness.js';
import { dmFixture, startSlackHarness, visibleText } from '../slack/slack-harness.js';
import { say } from '../../src/i18n/say.js';

const opened = await openReadOnlySqlite();
if ('unavailable' in opened) console.log(`store-failure tests skipped: ${opened.unavailable}`);
const ro = 'unavailable' in opened ? undefined : (opened as ReadOnlySqlite);
afterAll(() => ro?.close());

describe.skipIf(!ro)('store failure', () => {
  beforeAll(async () => {
    // The premise: reads work, writes are refused.
    await expect(ro!.stores.meta.get('created')).resolves.toBe(true);
    await expect(ro!.stores.meta.set('x', 1)).rejects.toThrow(/SQLITE_READONLY/);
  });

  it('an answer shown but not saved says "not saved", not "could not be handled"', async () => {
    const h = await startTestScout({ stores: ro!.stores });
    try {
      h.llm.enqueue(textReply('Paris is the capital of France.'));
      let final: TurnView | undefined;
      const replies: string[] = [];
      const sink: TurnSink = {
        update() {},
        async done(view) {
          final = structuredClone(view);
        },
        async reply(text) {
          replies.push(say('en', text));
        },
      };
      const message: IncomingMessage = {
        channelId: 'test:C1',
        conversationId: 'test:C1:T1',
        messageId: 'm-not-saved',
        userId: 'U1',
        text: 'Capital of France?',
      };
      await h.scout.handleMessage(message, sink);
      expect(replies).toEqual([]);
      expect(final?.answer).toContain('Paris is the capital of France.');
      expect(final?.error).toBeUndefined();
      expect(final?.notSaved).toBe(true);
      const notices = final?.steps.filter((s) => s.kind === 'warning').map((s) => s.title) ?? [];
      expect(notices.join('\n')).toMatch(/not saved/);
      expect(JSON.stringify(final)).not.toMatch(/could not be handled/);
    } finally {
      await h.close();
    }
  });

  // The Slack and Discord cases post recorded payloads (../shared/fixtures).
  itWithShared(
    'Slack: a DM that cannot be marked in the store gets a visible reply instead of silence',
    async () => {
      const s = await startSlackHarness({ stores: ro!.stores });
      try {
        const { dmMessage } = dmFixture();
        await s.event(dmMessage);
        await s.surface.idle();
        const shown = [
          ...s.slack.callsTo('chat.postEphemeral'),
          ...s.slack.callsTo('chat.postMessage'),
        ].filter((c) => c.args.channel === dmMessage.event.channel);
        expect(shown).toHaveLength(1);
        expect(`${shown[0]!.args.text} ${visibleText(shown[0]!.args.blocks ?? [])}`).toMatch(
          /storage is unavailable/,
        );
        expect(s.h.llm.requests).toHaveLength(0);
      } finally {
        await s.close();
      }
    },
  );

  itWithShared('Discord: a mention whose thread cannot be recorded gets a visible reply', async () => {
    const kit = await startKit(new ScriptedCore(), { stores: ro!.stores });
    try {
      const mention = fixtureMessage('gatewayAIMention');
      kit.fake.dispatch('MESSAGE_CREATE', mention);
      const reply = await kit.fake.waitFor(
        () => kit.fake.messagesIn(meta.channelId).find((m) => /storage is unavailable/.test(m.content)),
        5_000,
        'a store-unavailable reply',
      );
      expect(reply.content).toMatch(/try again/i);
    } finally {
      await kit.close();
    }
  });
});
