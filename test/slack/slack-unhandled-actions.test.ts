/**
 * A press Scout has no handler for (a link button in an answer, a button of an older Scout version
 * still on screen) is acknowledged at once and does nothing: unacknowledged, Slack would show the
 * presser a warning sign, and the HTTP request would hang until Bolt gives up on it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buttonPayload, type SlackHarness, startSlackHarness } from './slack-harness.js';

describe('Slack: presses nobody handles', () => {
  let s: SlackHarness;
  afterEach(async () => {
    await s.close();
  });

  it('acknowledges a link button and an unknown action at once, and calls nothing', async () => {
    s = await startSlackHarness();
    const at = { channel: 'C00FAKECHAN1', ts: '1700000000.000100' };
    const link = buttonPayload('scout_source_link', '', at);
    link.actions[0].url = 'https://example.com/';
    for (const payload of [link, buttonPayload('scout_retired_button_v1', 'x', at)]) {
      const res = await s.action(payload);
      // Acknowledged: Bolt answers an unacknowledged request only after ~3 s, and with a 404.
      expect(res.status).toBe(200);
    }
    await s.surface.idle();
    expect(s.slack.calls.filter((c) => c.method.startsWith('chat.')).map((c) => c.method)).toEqual([]);
  });
});
