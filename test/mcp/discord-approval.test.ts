/**
 * Discord: a tool call that may change something shows Approve / Deny; only the asker (or an admin)
 * may press; the choice reaches the core and the buttons give way to the outcome.
 */
import { afterEach, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import {
  ConfirmingCore,
  EPHEMERAL,
  fixtureMessage,
  type Kit,
  meta,
  OTHER_USER,
  pressButton,
  startKit,
} from '../discord/discord-test-kit.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

describeWithShared('Discord tool approval', () => {
  it('waits for the asker’s Approve; another user’s press is refused', async () => {
    const request = {
      tool: 'notes__delete_note',
      server: 'notes',
      title: 'Delete a note',
      arguments: '{\n  "id": "n1"\n}',
    };
    const core = new ConfirmingCore((sink, signal) => sink.confirmTool!(request, signal), {
      yes: 'Deleted.',
      no: 'Not deleted.',
    });
    kit = await startKit(core);
    const mention = fixtureMessage('gatewayMention');
    kit.fake.dispatch('MESSAGE_CREATE', mention);
    const ask = await kit.fake.waitFor(() =>
      kit!.fake.messagesIn(mention.id).find((m) => m.content.includes('notes__delete_note (Delete a note)')),
    );
    expect(ask.content).toContain('"id": "n1"');
    const buttons = ask.components[0].components as Array<{ custom_id: string; label: string }>;
    expect(buttons.map((b) => b.label)).toEqual(['Approve', 'Deny']);
    const press = (userId: string) =>
      pressButton(kit!.fake, {
        channelId: mention.id,
        messageId: ask.id,
        customId: buttons[0]!.custom_id,
        userId,
      });

    const reply = await press(OTHER_USER).reply();
    expect(reply.body.data.flags).toBe(EPHEMERAL);
    expect(reply.body.data.content).toContain('Only the person who asked');
    expect(core.choices).toEqual([]);

    press(meta.userId);
    await kit.fake.waitFor(() =>
      kit!.fake.messagesIn(mention.id).find((m) => m.content.includes('Deleted.')),
    );
    expect(core.choices).toEqual([true]);
    expect(ask.components).toEqual([]);
    expect(ask.content).toContain('Approved');
  });
});
