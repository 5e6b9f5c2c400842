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

/**
 * Kept here for the files that import it from translate.js; it lives in locale.ts, which the lint
 * step lets the adapters' event handling import (it maps a locale, it makes no words).
 */
export { toLocale } from './locale.js';
