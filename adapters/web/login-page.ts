/**
 * The password login page (login.html, built with the page): a plain form that needs no script,
 * filled with its one-time form token and the reason the last attempt failed, in the browser's
 * language.
 */
import type { Locale } from '../../src/i18n/locale.js';
import type { UserText } from '../../src/i18n/phrase.js';
import { say } from '../../src/i18n/say.js';
import { escapeHtml } from './http-kit.js';

export function loginPageHtml(
  template: string,
  formToken: string,
  error: UserText | undefined,
  locale: Locale,
): string {
  const message = error === undefined ? '' : escapeHtml(say(locale, error));
  // Replaced with functions: a `$` in the text is never read as a replacement pattern.
  return template.replace('{{csrf}}', () => formToken).replace('{{error}}', () => message);
}
