import { t } from '../../i18n/translate.js';
import type { Locale } from '../../surface.js';

/** "Found 3 results" (seed 000 "找到的结果数量"): chat mode's and agent mode's search steps alike. */
export function resultsTitle(locale: Locale, count: number): string {
  return count === 1 ? t(locale, 'step.results.one') : t(locale, 'step.results', { count });
}
