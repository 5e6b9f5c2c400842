/**
 * The passage-presence metric of trafilatura's evaluation corpus (`tests/eval_common.py`,
 * `count_item` and `ConfusionMatrix`): each page lists passages of its main text that must be in an
 * extractor's output (`with`) and boilerplate that must not (`without`). Both sides and the output
 * are whitespace-normalised (runs of whitespace to one space, trimmed), then matched as plain,
 * case-sensitive substrings. Per page: TP = `with` passages found, FN = `with` passages missing,
 * FP = `without` passages found, TN = `without` passages absent. Precision, recall and F1 are over
 * the counts summed across pages (a page with six passages weighs more than one with two).
 *
 * The text is scored as it is given: callers decide what it is (the model's text with its header,
 * Markdown syntax and all, or another reader's plain text).
 */
import { createHash } from 'node:crypto';

/** One page's annotation, as evaldata.json writes it. */
export interface PassageItem {
  with: readonly string[];
  without: readonly string[];
}

export interface PassageCounts {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}

export interface PassageScore extends PassageCounts {
  precision: number;
  recall: number;
  f1: number;
}

/** Whitespace runs as one space, trimmed (`norm` in eval_common.py). */
export function normaliseSpace(text: string): string {
  // Python's `\s` in a str pattern is Unicode whitespace, as JavaScript's is.
  return text.replace(/\s+/g, ' ').trim();
}

/** One page's counts; an extractor that gave nothing (undefined: it failed) finds nothing. */
export function countPassages(item: PassageItem, text: string | undefined): PassageCounts {
  const output = text === undefined ? undefined : normaliseSpace(text);
  const found = (passage: string) => output?.includes(normaliseSpace(passage)) === true;
  const tp = item.with.filter(found).length;
  const fp = item.without.filter(found).length;
  return { tp, fp, fn: item.with.length - tp, tn: item.without.length - fp };
}

/** Precision, recall and F1 over summed counts (each 0 when its denominator is). */
export function passageScore(pages: readonly PassageCounts[]): PassageScore {
  const sum = { tp: 0, fp: 0, fn: 0, tn: 0 };
  for (const p of pages) {
    sum.tp += p.tp;
    sum.fp += p.fp;
    sum.fn += p.fn;
    sum.tn += p.tn;
  }
  const precision = sum.tp + sum.fp > 0 ? sum.tp / (sum.tp + sum.fp) : 0;
  const recall = sum.tp + sum.fn > 0 ? sum.tp / (sum.tp + sum.fn) : 0;
  const denominator = 2 * sum.tp + sum.fp + sum.fn;
  return { ...sum, precision, recall, f1: denominator > 0 ? (2 * sum.tp) / denominator : 0 };
}

/**
 * The development half of a corpus, fixed by the page's URL alone: the first hex digit of its SHA-1
 * is 0-7. Error analysis looks only at these pages; the others are held out to check that a change
 * is general.
 */
export function isDevPage(url: string): boolean {
  const first = createHash('sha1').update(url).digest('hex')[0] ?? '0';
  return Number.parseInt(first, 16) < 8;
}
