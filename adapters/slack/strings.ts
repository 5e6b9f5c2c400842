/** User-visible strings of the Slack adapter, in English and Simplified Chinese (seed wording). */
import { toLocale as toScoutLocale } from '../../src/i18n/translate.js';
import type { Locale } from '../../src/surface.js';

export const SLACK_STRINGS = {
  stop: { en: '⏹ Stop', zh: '⏹ 停止' },
  stopped: { en: 'Stopping…', zh: '正在停止…' },
  nothingToStop: { en: 'Nothing is running in this thread.', zh: '此会话没有正在运行的任务。' },
  notYourStop: {
    en: 'Only the person who asked (or an admin) can stop this answer.',
    zh: '只有提问者（或管理员）可以停止此回答。',
  },
  notYourPlan: {
    en: 'Only the person who asked (or an admin) can run or cancel this plan.',
    zh: '只有提问者（或管理员）可以执行或取消此计划。',
  },
  showDetails: { en: 'Show details', zh: '显示详情' },
  hideDetails: { en: 'Hide details', zh: '隐藏详情' },
  working: { en: 'Working…', zh: '处理中…' },
  thinking: { en: 'Thinking…', zh: '思考中…' },
  searching: { en: 'Searching…', zh: '搜索中…' },
  answerFallback: { en: 'Answer', zh: '回答' },
  stepsFallback: { en: 'Steps', zh: '步骤' },
  continued: { en: '(continued)', zh: '（续）' },
  cancelled: { en: '⏹ Stopped.', zh: '⏹ 已停止。' },
  feedbackUp: { en: '👍', zh: '👍' },
  feedbackDown: { en: '👎', zh: '👎' },
  feedbackThanks: { en: 'Thanks for the feedback!', zh: '感谢反馈！' },
  runPlan: { en: '▶ Run', zh: '▶ 执行' },
  cancelPlan: { en: 'Cancel', zh: '取消' },
  planPrompt: { en: 'Run this plan?', zh: '执行此计划？' },
  planAccepted: { en: '▶ Running the plan…', zh: '▶ 正在执行计划…' },
  planDeclined: { en: 'Plan cancelled.', zh: '计划已取消。' },
  earlierSteps: { en: 'earlier steps', zh: '个之前的步骤' },
  homeTitle: { en: 'Scout settings', zh: 'Scout 设置' },
  homeIntro: {
    en: 'Pick a channel to see and change its settings. Settings belong to a channel; a DM is a channel too.',
    zh: '选择一个频道来查看和修改它的设置。设置属于频道；私信也是一个频道。',
  },
  homePickChannel: { en: 'Channel', zh: '频道' },
  homePickPlaceholder: { en: 'Choose a channel', zh: '选择频道' },
  homeMode: { en: '💬 Conversation mode', zh: '💬 对话模式' },
  modeChat: { en: 'Chat', zh: '聊天' },
  modeAgent: { en: 'Agent', zh: 'Agent' },
  modePlan: { en: 'Plan', zh: '计划' },
  modeChatDesc: {
    en: 'Regular conversation; web search can be switched on by hand',
    zh: '常规对话，可手动开启联网搜索',
  },
  modeAgentDesc: {
    en: 'Smart assistant that decides by itself whether to search the web',
    zh: '智能助手，自动决定是否联网搜索',
  },
  modePlanDesc: { en: 'Plans the steps first, then carries them out', zh: '先规划步骤，再逐步执行' },
  homeSearch: { en: '🔍 Web search', zh: '🔍 联网搜索' },
  searchOn: { en: 'On', zh: '开' },
  searchOff: { en: 'Off', zh: '关' },
  searchAgentNote: {
    en: 'In agent mode the AI decides when to search',
    zh: 'Agent 模式下由 AI 自动决策搜索',
  },
  homeToolModel: { en: '🔧 Function-call model', zh: '🔧 函数调用模型' },
  homeAnswerModel: { en: '✍️ Answer model', zh: '✍️ 回答模型' },
  sameAsTool: { en: 'Same as the function-call model', zh: '与函数调用模型相同' },
  homeTemperature: { en: 'Temperature', zh: '温度' },
  homeMaxTokens: { en: 'Max tokens', zh: '最大 tokens' },
  homeNoChannel: { en: 'No channel picked yet.', zh: '尚未选择频道。' },
  homeSaved: { en: 'Saved.', zh: '已保存。' },
} as const satisfies Record<string, Record<Locale, string>>;

export type SlackStringKey = keyof typeof SLACK_STRINGS;

export function t(key: SlackStringKey, locale: Locale): string {
  return SLACK_STRINGS[key][locale] ?? SLACK_STRINGS[key].en;
}

/**
 * Slack user locales look like `zh-CN` / `en-US`. A locale Scout does not speak (`ja-JP`) keeps
 * BOT_LOCALE rather than forcing English on a workspace that chose Chinese.
 */
export function toLocale(slackLocale: string | undefined, fallback: Locale): Locale {
  return toScoutLocale(slackLocale, fallback);
}
