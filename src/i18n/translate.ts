import type { Locale } from './locale.js';
import { STRINGS, type StringKey } from './strings.js';

/**
 * Looks up a string and fills its placeholders; unknown placeholders are left visible.
 *
 * - `{name}`: the value as it is.
 * - `{name, plural, one {# answer} other {# answers}}`: a count, as ICU MessageFormat writes it (the
 *   subset the catalog uses). The branch is chosen by the locale's plural rules (`=N` first: an exact
 *   count), `#` in it is the value as given (so a formatted "1,234" stays formatted; a value that is
 *   not a plain number reads as `other`), and a branch may hold `{name}` placeholders of its own.
 *   English needs `one` and `other`; Chinese has one form, so its strings write the words once.
 */
export function t(locale: Locale, key: StringKey, vars: Record<string, string | number> = {}): string {
  let template: string = STRINGS[locale][key] ?? STRINGS.en[key];
  // Most strings have no placeholder: no regex pass for them (t runs for every status and footer).
  if (!template.includes('{')) return template;
  if (template.includes(', plural,'))
    template = template.replace(PLURAL, (whole, name: string, branches: string) =>
      vars[name] === undefined ? whole : pluralBranch(locale, vars[name], branches),
    );
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    vars[name] === undefined ? whole : String(vars[name]),
  );
}

/** A branch: its selector (`one`, `other`, `=0` …) and its text, which may hold `{name}` placeholders. */
const SELECTOR = String.raw`=\d+|zero|one|two|few|many|other`;
const BRANCH_TEXT = String.raw`(?:[^{}]|\{\w+\})*`;
const BRANCH = new RegExp(String.raw`(${SELECTOR})\s*\{(${BRANCH_TEXT})\}`, 'g');
const PLURAL = new RegExp(
  String.raw`\{(\w+),\s*plural,((?:\s*(?:${SELECTOR})\s*\{${BRANCH_TEXT}\})+)\s*\}`,
  'g',
);

const rules = new Map<Locale, Intl.PluralRules>();

function pluralBranch(locale: Locale, value: string | number, branches: string): string {
  const count = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  const texts = new Map<string, string>();
  for (const [, selector, text] of branches.matchAll(BRANCH)) texts.set(selector!, text!);
  let rule = rules.get(locale);
  if (!rule) {
    rule = new Intl.PluralRules(locale === 'zh' ? 'zh-CN' : 'en-US');
    rules.set(locale, rule);
  }
  const category = Number.isFinite(count) ? rule.select(count) : 'other';
  const text = texts.get(`=${count}`) ?? texts.get(category) ?? texts.get('other') ?? '';
  return text.replaceAll('#', String(value));
}

/**
 * Kept here for the files that import it from translate.js; it lives in locale.ts, which the lint
 * step lets the adapters' event handling import (it maps a locale, it makes no words).
 */
export { toLocale } from './locale.js';
