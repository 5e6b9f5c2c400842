/**
 * Discord's Stop belongs to the person who asked, or to an admin: anyone else gets an ephemeral
 * refusal and the turn is not cancelled.
 */
import { afterEach, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import {
  EPHEMERAL,
  fixtureMessage,
  type Kit,
  meta,
  OTHER_USER,
  pressButton,
  ScriptedCore,
  startKit,
} from './discord-test-kit.js';

const ADMIN_USER = '1033044521375764888';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

/** Starts a turn (held open) asked by the fixture user; returns a function pressing Stop as `userId`. */
async function runningTurn(k: Kit, core: ScriptedCore) {
  const mention = fixtureMessage('gatewayMention');
  k.fake.dispatch('MESSAGE_CREATE', mention);
  const steps = await k.fake.waitFor(() =>
    k.fake
      .messagesIn(mention.id)
      .find((m) =>
        m.components[0]?.components.some((c: { custom_id: string }) => c.custom_id === 'scout_stop'),
      ),
  );
  return async (userId: string) => {
    const press = pressButton(k.fake, {
      channelId: mention.id,
      messageId: steps.id,
      customId: 'scout_stop',
      userId,
      locale: 'en-US',
    });
    const reply = await press.reply();
    return { reply: reply.body, conversation: `discord:${meta.guildId}:${mention.id}`, core };
  };
}

function heldCore(): { core: ScriptedCore; release: () => void } {
  const core = new ScriptedCore();
  let release!: () => void;
  core.gate = new Promise((resolve) => {
    release = resolve;
  });
  return { core, release };
}

describeWithShared('Discord Stop: only the asker or an admin', () => {
  it("refuses another user's Stop ephemerally and does not cancel", async () => {
    const { core, release } = heldCore();
    kit = await startKit(core, { env: { ADMIN_USERS: ADMIN_USER } });
    const press = await runningTurn(kit, core);
    const { reply } = await press(OTHER_USER);
    expect(reply.type).toBe(4);
    expect(reply.data.flags).toBe(EPHEMERAL);
    expect(reply.data.content).toBe('Only the person who asked (or an admin) can stop this answer.');
    expect(core.cancelled).toEqual([]);
    release();
  });

  it("cancels on the asker's and on an admin's Stop", async () => {
    const { core, release } = heldCore();
    kit = await startKit(core, { env: { ADMIN_USERS: ADMIN_USER } });
    const press = await runningTurn(kit, core);
    const byAsker = await press(meta.userId);
    expect(byAsker.reply.data.content).toContain('Stopping');
    const byAdmin = await press(ADMIN_USER);
    expect(byAdmin.reply.data.content).toContain('Stopping');
    expect(core.cancelled).toEqual([byAsker.conversation, byAdmin.conversation]);
    release();
  });
});
