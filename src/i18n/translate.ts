import type { Locale } from './locale.js';
import { STRINGS, type StringKey } from './strings.js';

/** Looks up a string and fills `{name}` placeholders; unknown placeholders are left visible. */
export function t(locale: Locale, key: StringKey, vars: Record<string, string | number> = {}): string {
  const template: string = STRINGS[locale][key] ?? STRINGS.en[key];
  // Most strings have no placeholder: no regex pass for them (t runs for every status and footer).
  if (!template.includes('{')) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    vars[name] === undefined ? whole : String(vars[name]),
  );
}

/** Maps a platform locale ("zh-CN", "zh_CN", "en-US") to one Scout speaks. */
export function toLocale(value: string | undefined, fallback: Locale): Locale {
  if (!value) return fallback;
  return value.toLowerCase().startsWith('zh') ? 'zh' : value.toLowerCase().startsWith('en') ? 'en' : fallback;
}
