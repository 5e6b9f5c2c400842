/**
 * The metric of WCXB, the Web Content eXtraction Benchmark (its `evaluate.py`): per page, the output
 * and the ground truth's `main_content` become bags of lowercased words (`re.findall(r'\w+',
 * text.lower())`); the overlap is the multiset intersection (`Counter & Counter`); precision is the
 * overlap over the output's words, recall over the truth's, F1 their harmonic mean. A page whose truth
 * has no words scores 1 when the output has none too and 0 otherwise; an output with no words scores 0.
 * Corpus figures are plain means over pages (a short page weighs as much as a long one).
 *
 * Beside it, the share of the page's `with` snippets found in the output and of its `without`
 * snippets found (lower is better): each a lowercased plain substring match, 1 when the list is empty.
 *
 * Python's `\w` on a str is Unicode-aware: letters, digits and other numerals, and `_`; combining marks
 * are not in it (a Devanagari vowel sign splits a word there, and here). JavaScript's `toLowerCase`
 * and Python's `str.lower` are both Unicode's full lowercase mapping, final sigma included.
 */

/** One Python `\w` run: letters, numbers, underscore. */
const WORD_RE = /[\p{L}\p{N}_]+/gu;

/** Lowercased words of `text`, in order, as `re.findall(r'\w+', text.lower())` gives them. */
export function words(text: string): string[] {
  return text ? (text.toLowerCase().match(WORD_RE) ?? []) : [];
}

export interface WordScore {
  precision: number;
  recall: number;
  f1: number;
}

function bag(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/** `word_f1(predicted, reference)` of evaluate.py. */
export function wordF1(predicted: string, reference: string): WordScore {
  const pred = words(predicted);
  const ref = words(reference);
  if (ref.length === 0) {
    const same = pred.length === 0 ? 1 : 0;
    return { precision: same, recall: same, f1: same };
  }
  if (pred.length === 0) return { precision: 0, recall: 0, f1: 0 };
  const refCounts = bag(ref);
  let overlap = 0;
  for (const [word, n] of bag(pred)) overlap += Math.min(n, refCounts.get(word) ?? 0);
  const precision = overlap / pred.length;
  const recall = overlap / ref.length;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

/** `snippet_check(text, snippets)` of evaluate.py: the share of snippets in the text, ignoring case. */
export function snippetRate(text: string, snippets: readonly string[]): number {
  if (snippets.length === 0) return 1;
  const lower = text.toLowerCase();
  return snippets.filter((s) => lower.includes(s.toLowerCase())).length / snippets.length;
}

/** One page scored as evaluate.py does. */
export interface WordPageScore extends WordScore {
  withRate: number;
  withoutRate: number;
}

export function scoreWordPage(
  predicted: string,
  truth: { mainContent: string; with: readonly string[]; without: readonly string[] },
): WordPageScore {
  return {
    ...wordF1(predicted, truth.mainContent),
    withRate: snippetRate(predicted, truth.with),
    withoutRate: snippetRate(predicted, truth.without),
  };
}

/** Means over pages (all 0 for no pages). */
export function meanWordScore(pages: readonly WordPageScore[]): WordPageScore {
  const mean = (key: keyof WordPageScore) =>
    pages.length === 0 ? 0 : pages.reduce((sum, p) => sum + p[key], 0) / pages.length;
  return {
    precision: mean('precision'),
    recall: mean('recall'),
    f1: mean('f1'),
    withRate: mean('withRate'),
    withoutRate: mean('withoutRate'),
  };
}
