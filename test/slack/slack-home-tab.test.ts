import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SlackHarness, startSlackHarness, visibleText } from './slack-harness.js';

const team = 'T00FAKE00AA';
const user = 'U00FAKEUSER1';

function homeAction(actionId: string, action: Record<string, unknown>) {
  return {
    type: 'block_actions',
    team: { id: team, domain: 'fake' },
    user: { id: user, username: 'tester', team_id: team },
    api_app_id: 'A00FAKEAPP01',
    token: 'x',
    trigger_id: '1.2.3',
    container: { type: 'view', view_id: 'V1' },
    view: { id: 'V1', type: 'home', blocks: [] },
    actions: [{ action_id: actionId, block_id: 'b', action_ts: '1', ...action }],
  };
}

describe('Slack App Home settings panel', () => {
  let s: SlackHarness;
  beforeEach(async () => {
    s = await startSlackHarness();
  });
  afterEach(async () => {
    await s.close();
  });

  it('shows a channel picker, then the channel settings, and changes the mode through the core', async () => {
    await s.event({
      team_id: team,
      type: 'event_callback',
      event: { type: 'app_home_opened', user, channel: 'D1', tab: 'home', event_ts: '1.1' },
    });
    await s.slack.waitFor(() => s.slack.callsTo('views.publish').length === 1, 3000, 'home view');
    const first = s.slack.callsTo('views.publish')[0]!.args;
    expect(first.user_id).toBe(user);
    expect(JSON.stringify(first.view.blocks)).toContain('conversations_select');

    await s.action(
      homeAction('scout_home_channel', { type: 'conversations_select', selected_conversation: 'C0SETTINGS' }),
    );
    await s.slack.waitFor(() => s.slack.callsTo('views.publish').length === 2, 3000, 'settings view');
    const second = visibleText(s.slack.callsTo('views.publish')[1]!.args.view.blocks);
    expect(second).toContain('💬 Conversation mode');
    expect(second).toContain('Smart assistant that decides by itself whether to search the web');

    await s.action(
      homeAction('scout_home_mode', {
        type: 'radio_buttons',
        selected_option: { value: 'agent', text: { type: 'plain_text', text: 'Agent' } },
      }),
    );
    await s.slack.waitFor(() => s.slack.callsTo('views.publish').length === 3, 3000, 'updated view');
    expect((await s.h.scout.getSettings(`slack:${team}:C0SETTINGS`)).mode).toBe('agent');
    const third = visibleText(s.slack.callsTo('views.publish')[2]!.args.view.blocks);
    expect(third).toContain('In agent mode the AI decides when to search');
    expect(s.slack.violations).toEqual([]);
  });
});
