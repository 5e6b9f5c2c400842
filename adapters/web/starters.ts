/**
 * The suggested prompts on an empty chat: WEB_STARTERS ("|"-separated), or a few that show what each
 * mode does, in the page's language.
 */
import type { Locale } from '../../src/surface.js';

const DEFAULT_STARTERS: Record<Locale, string[]> = {
  en: [
    'What changed in the latest Node.js release?',
    'Compare SQLite and Redis for a small team bot',
    'Explain ReAct agents in three sentences',
    '/help',
  ],
  zh: [
    '最新的 Node.js 版本有哪些变化？',
    '比较 SQLite 和 Redis 作为小团队机器人的存储',
    '用三句话解释 ReAct 智能体',
    '/help',
  ],
};

export function starters(configured: string | undefined, locale: Locale): string[] {
  if (!configured) return DEFAULT_STARTERS[locale];
  return configured
    .split('|')
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, 8);
}
