/**
 * What user-visible text is before it meets a locale. The core, the modes, search, context and the
 * budget say *what happened* as a phrase — a catalog key with its values — and only the renderer,
 * the i18n layer and the adapters' payload builders turn phrases into words (say.ts), with the
 * locale resolved once per turn or reply. This file imports no translation on purpose: the lint
 * step lets every layer import it, and only those three import `say`/`t`.
 */
import type { StringKey } from './strings.js';

/** A value filled into a placeholder: plain text, a number, or a phrase said in the same locale. */
export type PhraseValue = string | number | Phrase;

export type Phrase =
  /** A catalog string, its `{name}` placeholders filled from `values`. */
  | { readonly key: StringKey; readonly values?: Readonly<Record<string, PhraseValue>> }
  /** Phrases said one after the other, `separator` between them (none by default). */
  | { readonly parts: readonly UserText[]; readonly separator?: string };

/**
 * Text for a user: a phrase, or a plain string shown as it is — what a model, a provider's error, a
 * web page or a user wrote, which no catalog translates.
 */
export type UserText = string | Phrase;

/** A catalog string with its values: `phrase('step.searching', { query })`. */
export function phrase(key: StringKey, values?: Readonly<Record<string, PhraseValue>>): Phrase {
  return values ? { key, values } : { key };
}

/** Several texts said as one, e.g. lines joined by `'\n'`. */
export function joinText(parts: readonly UserText[], separator = ''): Phrase {
  return { parts, separator };
}
