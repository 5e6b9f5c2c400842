/**
 * Turns a phrase into words in one locale. Only the renderer, the i18n layer and the adapters'
 * payload builders call this (the lint step keeps it so): everything else hands phrases on.
 */
import type { Locale } from './locale.js';
import type { Phrase, PhraseValue, UserText } from './phrase.js';
import { t } from './translate.js';

export function say(locale: Locale, text: UserText): string {
  if (typeof text === 'string') return text;
  if ('parts' in text) return text.parts.map((part) => say(locale, part)).join(text.separator ?? '');
  return t(locale, text.key, text.values ? sayValues(locale, text.values) : undefined);
}

/** `say` that keeps "nothing" as nothing (optional titles and bodies of step events). */
export function sayOptional(locale: Locale, text: UserText | undefined): string | undefined {
  return text === undefined ? undefined : say(locale, text);
}

function sayValues(
  locale: Locale,
  values: Readonly<Record<string, PhraseValue>>,
): Record<string, string | number> {
  const said: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(values)) {
    said[name] = typeof value === 'object' ? say(locale, value as Phrase) : value;
  }
  return said;
}
