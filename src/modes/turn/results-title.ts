import { type Phrase, phrase } from '../../i18n/phrase.js';

/** "Found 3 results" (seed 000 "找到的结果数量"): chat mode's and agent mode's search steps alike. */
export function resultsTitle(count: number): Phrase {
  return count === 1 ? phrase('step.results.one') : phrase('step.results', { count });
}
