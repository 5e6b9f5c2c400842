/**
 * Discord: a tool call that may change something shows Approve / Deny; only the asker (or an admin)
 * may press; the choice reaches the core and the buttons give way to the outcome.
 */
import { afterEach, expect, it } from 'vitest';
import { emptyView } from '../../src/render/view.js';
import type { IncomingMessage, TurnSink } from '../../src/surface.js';
import { describeWithShared } from '../helpers/fixtures.js';
import {
  fixtureInteraction,
  fixtureMessage,
  type Kit,
  meta,
  ScriptedCore,
  startKit,
} from '../discord/discord-test-kit.js';

const OTHER_USER = '1033044521375764999';
const EPHEMERAL = 64;

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

describeWithShared('Discord tool approval', () => {
  it('waits for the asker’s Approve; another user’s press is refused', async () => {
    const choices: boolean[] = [];
    const core = new (class extends ScriptedCore {
      override async handleMessage(message: IncomingMessage, sink: TurnSink): Promise<void> {
        this.received.push(message);
        const view = emptyView();
        sink.update(view);
        const approved = await sink.confirmTool!(
          {
            tool: 'notes__delete_note',
            server: 'notes',
            title: 'Delete a note',
            arguments: '{\n  "id": "n1"\n}',
          },
          new AbortController().signal,
        );
        choices.push(approved);
        view.answer = approved ? 'Deleted.' : 'Not deleted.';
        view.answerFinal = true;
        view.done = true;
        await sink.done(view);
      }
    })();
    kit = await startKit(core);
    const mention = fixtureMessage('gatewayMention');
    kit.fake.dispatch('MESSAGE_CREATE', mention);
    const ask = await kit.fake.waitFor(() =>
      kit!.fake.messagesIn(mention.id).find((m) => m.content.includes('notes__delete_note (Delete a note)')),
    );
    expect(ask.content).toContain('"id": "n1"');
    const buttons = ask.components[0].components as Array<{ custom_id: string; label: string }>;
    expect(buttons.map((b) => b.label)).toEqual(['Approve', 'Deny']);
    const approve = buttons[0]!.custom_id;
    const press = (userId: string) => {
      const f = fixtureInteraction('buttonClickHello');
      return kit!.fake.interact({
        ...f,
        member: { ...f.member, user: { ...f.member.user, id: userId } },
        channel_id: mention.id,
        message: { ...f.message, id: ask.id },
        data: { component_type: 2, custom_id: approve },
      });
    };
    const refused = press(OTHER_USER);
    const reply = await kit.fake.waitFor(() =>
      kit!.fake
        .callsTo('POST /interactions/:interaction/:token/callback')
        .find((c) => c.path.includes(`/interactions/${refused.id}/`)),
    );
    expect(reply.body.data.flags).toBe(EPHEMERAL);
    expect(reply.body.data.content).toContain('Only the person who asked');
    expect(choices).toEqual([]);

    press(meta.userId);
    await kit.fake.waitFor(() =>
      kit!.fake.messagesIn(mention.id).find((m) => m.content.includes('Deleted.')),
    );
    expect(choices).toEqual([true]);
    expect(ask.components).toEqual([]);
    expect(ask.content).toContain('Approved');
  });
});
