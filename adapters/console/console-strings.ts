/** User-visible strings of the terminal chat, in English and Simplified Chinese (BOT_LOCALE picks). */
import type { Locale } from '../../src/surface.js';

export const CONSOLE_STRINGS = {
  banner: {
    en: 'Scout — type a question, /help for commands, Ctrl-C to stop an answer, Ctrl-D to quit.',
    zh: 'Scout — 输入问题，/help 查看命令，Ctrl-C 停止回答，Ctrl-D 退出。',
  },
  runPlan: { en: 'Run this plan? [Y/n] ', zh: '执行此计划？[Y/n] ' },
  references: { en: 'References', zh: '参考文献' },
} as const satisfies Record<string, Record<Locale, string>>;

export function cs(locale: Locale, key: keyof typeof CONSOLE_STRINGS): string {
  return CONSOLE_STRINGS[key][locale] ?? CONSOLE_STRINGS[key].en;
}
