/**
 * The typing indicator under the bot's shared global pace (issue 58 item 3): its send waits for the
 * shared budget's answer, which can come after the turn ended. A typing indicator sent then shows
 * "Scout is typing…" under a finished answer for 10 s; it must not go out.
 */
import Keyv from 'keyv';
import { describe, expect, it, vi } from 'vitest';
import { ActiveTurns, StepsArchive } from '../../adapters/discord/turn-state.js';
import { DiscordTurnSink } from '../../adapters/discord/turn-sink.js';
import { silentLogger } from '../../src/logger.js';
import { emptyView } from '../../src/render/view.js';

describe('Discord: the typing indicator under the shared global pace', () => {
  it('a typing send whose budget answer comes after the turn ended is not sent', async () => {
    let typed = 0;
    const channel = {
      id: '1457468924290662600',
      isDMBased: () => false,
      sendTyping: async () => {
        typed++;
      },
      send: async () => ({ edit: async () => {}, delete: async () => {} }),
    };
    // The budget answers only when the test says so (a busy store).
    const waiting: Array<() => void> = [];
    const sink = new DiscordTurnSink({
      channel: channel as never,
      locale: 'en',
      logger: silentLogger,
      active: new ActiveTurns(),
      archive: new StepsArchive(new Keyv()),
      typingIntervalMs: 60_000,
      paceTyping: (send) => new Promise<void>((resolve) => waiting.push(resolve)).then(send),
    });
    const view = emptyView();
    view.status = 'Working';
    sink.update(view);
    await vi.waitFor(() => expect(waiting.length).toBe(1), { timeout: 10_000 });
    view.done = true;
    await sink.done(view);
    // The budget answers now: the turn is over, nothing is sent.
    const sent = waiting.map((answer) => {
      answer();
      return new Promise((resolve) => setImmediate(resolve));
    });
    await Promise.all(sent);
    await new Promise((resolve) => setImmediate(resolve));
    expect(typed).toBe(0);
  });
});
