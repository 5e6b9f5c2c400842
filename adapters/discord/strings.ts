/**
 * User-visible strings of the Discord adapter, English and Simplified Chinese. The lead's src/i18n/
 * collects these tables later; until then the adapter reads them through `ds()`.
 */
import type { Locale } from '../../src/surface.js';

export const DISCORD_STRINGS = {
  en: {
    'button.show-details': 'Show details',
    'button.hide-details': 'Hide details',
    'button.stop': 'Stop',
    'button.run-plan': 'Run plan',
    'button.cancel-plan': 'Cancel',
    'button.feedback-up': '👍',
    'button.feedback-down': '👎',
    'steps.working': '⏳ Working…',
    'stop.requested': '⏹️ Stopping…',
    'stop.nothing-running': 'Nothing is running here.',
    'stop.not-yours': 'Only the person who asked (or an admin) can stop this answer.',
    'plan.not-yours': 'Only the person who asked (or an admin) can run or cancel this plan.',
    'feedback.thanks': 'Thanks for the feedback!',
    'plan.prompt': '📋 Run this plan?',
    'plan.running': '▶️ Running the plan…',
    'plan.cancelled': '✖️ Plan cancelled.',
    'steps.expired': 'These details are no longer available.',
    'option.mode': 'Conversation mode',
    'option.search': 'on or off',
    'option.args': 'Arguments, e.g. tool openai/gpt-4.1 temperature=0.3',
    'choice.chat': 'Chat',
    'choice.agent': 'Agent',
    'choice.plan': 'Plan',
    'choice.on': 'On',
    'choice.off': 'Off',
    'option.thread': 'Answer mentions in this channel in a new thread or in place',
    'choice.thread-on': 'Reply in a thread',
    'choice.thread-off': 'Reply in place',
  },
  zh: {
    'button.show-details': '展开详情',
    'button.hide-details': '收起详情',
    'button.stop': '停止',
    'button.run-plan': '执行计划',
    'button.cancel-plan': '取消',
    'button.feedback-up': '👍',
    'button.feedback-down': '👎',
    'steps.working': '⏳ 处理中…',
    'stop.requested': '⏹️ 正在停止…',
    'stop.nothing-running': '这里没有正在进行的任务。',
    'stop.not-yours': '只有提问者（或管理员）可以停止此回答。',
    'plan.not-yours': '只有提问者（或管理员）可以执行或取消此计划。',
    'feedback.thanks': '感谢你的反馈！',
    'plan.prompt': '📋 要执行这个计划吗？',
    'plan.running': '▶️ 正在执行计划…',
    'plan.cancelled': '✖️ 计划已取消。',
    'steps.expired': '这些详情已不可用。',
    'option.mode': '对话模式',
    'option.search': '开启或关闭',
    'option.args': '参数，例如 tool openai/gpt-4.1 temperature=0.3',
    'choice.chat': '对话',
    'choice.agent': '智能体',
    'choice.plan': '计划',
    'choice.on': '开启',
    'choice.off': '关闭',
    'option.thread': '本频道的提及在新话题中回答，或直接在原处回答',
    'choice.thread-on': '在话题中回复',
    'choice.thread-off': '在原处回复',
  },
} as const satisfies Record<Locale, Record<string, string>>;

export type DiscordStringKey = keyof (typeof DISCORD_STRINGS)['en'];

export function ds(locale: Locale, key: DiscordStringKey): string {
  return DISCORD_STRINGS[locale][key] ?? DISCORD_STRINGS.en[key];
}
