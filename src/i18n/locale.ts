/** The languages Scout speaks (the seeds' Simplified Chinese, and English). */
export type Locale = 'en' | 'zh';

/** Maps a platform locale ("zh-CN", "zh_CN", "en-US") to one Scout speaks. */
export function toLocale(value: string | undefined, fallback: Locale): Locale {
  if (!value) return fallback;
  return value.toLowerCase().startsWith('zh') ? 'zh' : value.toLowerCase().startsWith('en') ? 'en' : fallback;
}
