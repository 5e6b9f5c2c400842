/**
 * What the Slack adapter says outside a turn's messages — suggested prompts, a button's private note,
 * the App Home's notices and admin usage, a refused user's Home — in the user's own locale (here
 * Chinese, while Scout's default is English): the event handlers hand phrases on and the builders say
 * them in the locale Slack reports for the user.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  buttonPayload,
  type SlackHarness,
  startSlackHarness,
  visibleText,
  homeActionPayload,
} from './slack-harness.js';

const team = 'T00FAKE00AA';
const user = 'U00FAKEUSER1';
const zh = { fake: { userLocales: { [user]: 'zh-CN' } } };

const homeAction = (actionId: string, action: Record<string, unknown>) =>
  homeActionPayload(actionId, action, { team, user });

describe('Slack notes outside a turn, in the user’s locale', () => {
  let s: SlackHarness | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('suggests the prompts of a new assistant thread in the user’s language', async () => {
    s = await startSlackHarness(zh);
    await s.event({
      team_id: team,
      type: 'event_callback',
      event: {
        type: 'assistant_thread_started',
        assistant_thread: { channel_id: 'D0ASSIST', thread_ts: '1.000001', user_id: user },
      },
    });
    const slack = s.slack;
    await slack.waitFor(
      () => slack.callsTo('assistant.threads.setSuggestedPrompts').length === 1,
      3000,
      'prompts',
    );
    expect(slack.callsTo('assistant.threads.setSuggestedPrompts')[0]!.args).toMatchObject({
      channel_id: 'D0ASSIST',
      thread_ts: '1.000001',
      prompts: [
        { title: '你能做什么？', message: 'help' },
        { title: '联网搜索', message: '本周 AI 领域有哪些最新进展？' },
        { title: '切换到 Agent 模式', message: 'mode agent' },
      ],
    });
  });

  it('answers a Stop with nothing running privately, in the presser’s language, in the thread', async () => {
    s = await startSlackHarness(zh);
    await s.action(buttonPayload('scout_stop', 'slack:idle', { channel: 'C0IDLE', ts: '2.000001', user }));
    const slack = s.slack;
    await slack.waitFor(() => slack.callsTo('chat.postEphemeral').length === 1, 3000, 'the note');
    expect(slack.callsTo('chat.postEphemeral')[0]!.args).toMatchObject({
      channel: 'C0IDLE',
      user,
      text: '此会话没有正在运行的任务。',
      thread_ts: '2.000001',
    });
  });

  it('shows an admin the command’s reply and the usage report in the Home, in their language', async () => {
    s = await startSlackHarness({ ...zh, env: { ADMIN_USERS: user } });
    const slack = s.slack;
    await s.action(
      homeAction('scout_home_channel', { type: 'conversations_select', selected_conversation: 'C0ANY' }),
    );
    await slack.waitFor(() => slack.callsTo('views.publish').length === 1, 3000, 'view');
    await s.action(
      homeAction('scout_home_mode', {
        type: 'radio_buttons',
        selected_option: { value: 'agent', text: { type: 'plain_text', text: 'agent' } },
      }),
    );
    await slack.waitFor(() => slack.callsTo('views.publish').length === 2, 3000, 'view after the change');
    const blocks = slack.callsTo('views.publish')[1]!.args.view.blocks as Array<{
      type: string;
      text: { text: string };
    }>;
    expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Scout 设置' } });
    // The notice under the intro is the command's reply, said in the user's language.
    expect(blocks[2]!.text.text).toBe(
      '✅ 已切换到 *Agent* 模式：智能助手，自动决定是否联网搜索。对话历史和搜索缓存已清空。',
    );
    // Under the settings: a divider, then the usage report as text.
    const usage = blocks.findIndex((b) => b.type === 'section' && b.text.text.startsWith('*你的用量*'));
    expect(usage).toBeGreaterThan(0);
    expect(blocks[usage - 1]).toEqual({ type: 'divider' });
    expect(blocks[usage]!.text.text.split('\n')[0]).toBe('*你的用量*（按 UTC 日计）');
    expect(slack.violations).toEqual([]);
  });

  it('shows a refused user only the title and a note in the Home', async () => {
    s = await startSlackHarness({ ...zh, env: { BLOCKED_USERS: user } });
    await s.event({
      team_id: team,
      type: 'event_callback',
      event: { type: 'app_home_opened', user, channel: 'D1', tab: 'home', event_ts: '1.1' },
    });
    const slack = s.slack;
    await slack.waitFor(() => slack.callsTo('views.publish').length === 1, 3000, 'home view');
    expect(slack.callsTo('views.publish')[0]!.args.view).toEqual({
      type: 'home',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Scout 设置' } },
        { type: 'section', text: { type: 'mrkdwn', text: '你没有在这里使用 Scout 的权限。' } },
      ],
    });
    expect(visibleText(slack.callsTo('views.publish')[0]!.args.view.blocks)).not.toContain('Scout settings');
  });
});
