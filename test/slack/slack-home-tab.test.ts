import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SlackHarness, startSlackHarness, visibleText, homeActionPayload } from './slack-harness.js';

const team = 'T00FAKE00AA';
const user = 'U00FAKEUSER1';

const homeAction = (actionId: string, action: Record<string, unknown>) =>
  homeActionPayload(actionId, action, { team, user });

describe('Slack App Home settings panel', () => {
  let s: SlackHarness;
  beforeEach(async () => {
    s = await startSlackHarness();
  });
  afterEach(async () => {
    await s.close();
  });

  it('shows a channel picker, then the channel settings, and changes the mode through the core', async () => {
    s.slack.channels.set('C0SETTINGS', { name: 'settings', members: new Set([user]) });
    await s.event({
      team_id: team,
      type: 'event_callback',
      event: { type: 'app_home_opened', user, channel: 'D1', tab: 'home', event_ts: '1.1' },
    });
    await s.slack.waitFor(() => s.slack.callsTo('views.publish').length === 1, 3000, 'home view');
    const first = s.slack.callsTo('views.publish')[0]!.args;
    expect(first.user_id).toBe(user);
    expect(JSON.stringify(first.view.blocks)).toContain('"static_select","action_id":"scout_home_channel"');

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

  const open = async (n: number) => {
    await s.event({
      team_id: team,
      type: 'event_callback',
      event: { type: 'app_home_opened', user, channel: 'D1', tab: 'home', event_ts: '1.1' },
    });
    await s.slack.waitFor(() => s.slack.callsTo('views.publish').length === n, 3000, 'home view');
  };
  const published = (n: number) => s.slack.callsTo('views.publish')[n]!.args.view.blocks;
  const pick = async (channel: string, n: number) => {
    await s.action(
      homeAction('scout_home_channel', { type: 'conversations_select', selected_conversation: channel }),
    );
    await s.slack.waitFor(() => s.slack.callsTo('views.publish').length === n, 3000, 'view after pick');
  };
  const setMode = async (mode: string, n: number) => {
    await s.action(
      homeAction('scout_home_mode', {
        type: 'radio_buttons',
        selected_option: { value: mode, text: { type: 'plain_text', text: mode } },
      }),
    );
    await s.slack.waitFor(() => s.slack.callsTo('views.publish').length === n, 3000, 'view after change');
  };

  it("offers only the user's own channels (private ones only where Scout is too)", async () => {
    s.slack.channels.set('C0MINE', { name: 'mine', members: new Set([user]) });
    s.slack.channels.set('C0OTHERS', { name: 'others', members: new Set(['U00SOMEONE01']) });
    s.slack.channels.set('G0SECRET', { name: 'secret', members: new Set([user]), isPrivate: true });
    await open(1);
    const picker = JSON.stringify(published(0));
    expect(picker).toContain('"static_select"');
    expect(picker).toContain('C0MINE');
    expect(picker).not.toContain('C0OTHERS');
    expect(picker).not.toContain('G0SECRET');
    expect(picker).not.toContain('conversations_select');
  });

  it('refuses a pick of a channel the user is not in, with a note and no settings shown', async () => {
    s.slack.channels.set('C0OTHERS', { name: 'others', members: new Set(['U00SOMEONE01']) });
    await pick('C0OTHERS', 1);
    const view = visibleText(published(0));
    expect(view).toContain('only see and change the settings of channels you are a member of');
    expect(view).not.toContain('Conversation mode');
    // The refused pick is not remembered: a mode change afterwards applies nowhere.
    await setMode('agent', 2);
    expect((await s.h.scout.getSettings(`slack:${team}:C0OTHERS`)).mode).toBe('chat');
  });

  it('refuses a change after the user left the channel, and applies nothing', async () => {
    s.slack.channels.set('C0LEFT', { name: 'left', members: new Set([user]) });
    await pick('C0LEFT', 1);
    expect(visibleText(published(0))).toContain('Conversation mode');
    s.slack.channels.get('C0LEFT')!.members.delete(user);
    await setMode('agent', 2);
    expect(visibleText(published(1))).toContain('Nothing was changed');
    expect((await s.h.scout.getSettings(`slack:${team}:C0LEFT`)).mode).toBe('chat');
    expect(s.slack.violations).toEqual([]);
  });
});

describe('Slack App Home for an admin', () => {
  it('picks and changes any channel', async () => {
    const s = await startSlackHarness({ env: { ADMIN_USERS: user } });
    try {
      await s.action(
        homeAction('scout_home_channel', { type: 'conversations_select', selected_conversation: 'C0ANY' }),
      );
      await s.slack.waitFor(() => s.slack.callsTo('views.publish').length === 1, 3000, 'view');
      expect(JSON.stringify(s.slack.callsTo('views.publish')[0]!.args.view.blocks)).toContain(
        'conversations_select',
      );
      await s.action(
        homeAction('scout_home_mode', {
          type: 'radio_buttons',
          selected_option: { value: 'agent', text: { type: 'plain_text', text: 'agent' } },
        }),
      );
      await s.slack.waitFor(() => s.slack.callsTo('views.publish').length === 2, 3000, 'view');
      expect((await s.h.scout.getSettings(`slack:${team}:C0ANY`)).mode).toBe('agent');
    } finally {
      await s.close();
    }
  });
});
