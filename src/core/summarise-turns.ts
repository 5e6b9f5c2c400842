/**
 * One summarising call: the previous summary plus the turns being folded go to the summary model
 * (prompts/memory.system.md), and what comes back is checked before it may replace them. A summary
 * that is empty, far over its budget, cut off, or in another script than the conversation is
 * refused with a reason, never stored: the caller then goes on without it.
 */
import { delimitData } from '../context/delimit.js';
import { isAbortError } from '../errors.js';
import type { ChatMessage, LlmClient } from '../llm/types.js';
import type { PromptLibrary } from '../prompts/prompt-library.js';

/** A summarising call that takes longer is abandoned: the answer must not wait on its memory. */
export const SUMMARY_TIMEOUT_MS = 20_000;
/** A summary this much over its token budget is "huge" (models overshoot a word count a little). */
const HUGE_FACTOR = 1.5;
/** Below this many letters, the script of the conversation says too little to judge the summary's. */
const MIN_LETTERS_TO_JUDGE = 40;
/** The summary's main script must make up at least this share of the conversation's letters. */
const MIN_SCRIPT_SHARE = 0.15;

export type SummaryFailure = 'error' | 'timeout' | 'empty' | 'huge' | 'language';

export type SummaryResult =
  | { ok: true; text: string }
  | { ok: false; reason: SummaryFailure; error?: unknown };

export interface SummariseInput {
  client: LlmClient;
  prompts: PromptLibrary;
  /** The summary so far, which the new one must carry forward. */
  previous?: string;
  /** The turns being folded, oldest first. */
  turns: ChatMessage[];
  /** Token budget of the summary. */
  maxTokens: number;
  /** Counts a text's tokens (the caller's tokenizer is already loaded). */
  countText: (text: string) => number;
  signal: AbortSignal;
  timeoutMs?: number;
}

/** Throws only when `signal` aborted (the turn was stopped); every other failure is a result. */
export async function summariseTurns(input: SummariseInput): Promise<SummaryResult> {
  const transcript = transcriptOf(input.turns);
  const user = [
    input.previous ? delimitData('previous-summary', input.previous) : '',
    delimitData('turns', transcript),
  ]
    .filter(Boolean)
    .join('\n\n');
  const timeout = AbortSignal.timeout(input.timeoutMs ?? SUMMARY_TIMEOUT_MS);
  let text: string;
  let cutOff: boolean;
  try {
    const system = input.prompts.render(
      'memory.system',
      { max_words: Math.max(50, Math.floor(input.maxTokens * 0.6)) },
      input.client.config.provider,
    );
    const response = await input.client.complete({
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      signal: AbortSignal.any([input.signal, timeout]),
    });
    text = response.text.trim();
    cutOff = response.finishReason === 'length';
  } catch (error) {
    if (input.signal.aborted) throw error;
    return { ok: false, reason: timeout.aborted || isAbortError(error) ? 'timeout' : 'error', error };
  }
  if (text === '') return { ok: false, reason: 'empty' };
  if (cutOff || input.countText(text) > input.maxTokens * HUGE_FACTOR) return { ok: false, reason: 'huge' };
  // What people and Scout wrote, without the transcript's English speaker labels.
  const written = [input.previous ?? '', ...input.turns.map((message) => message.content)].join('\n');
  if (!sameScript(written, text)) return { ok: false, reason: 'language' };
  return { ok: true, text };
}

/** The turns as the summary model reads them: who spoke, then what they wrote. */
function transcriptOf(turns: ChatMessage[]): string {
  return turns
    .map((message) => `${message.role === 'assistant' ? 'Scout' : 'User'}: ${message.content}`)
    .join('\n\n');
}

/** Scripts told apart (Chinese, Japanese and Korean count as one: a summary may mix them). */
const SCRIPTS: [name: string, pattern: RegExp][] = [
  ['latin', /\p{Script=Latin}/u],
  ['cjk', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['greek', /\p{Script=Greek}/u],
  ['hebrew', /\p{Script=Hebrew}/u],
  ['devanagari', /\p{Script=Devanagari}/u],
  ['thai', /\p{Script=Thai}/u],
];

/** Letters looked at per text: enough to tell its script, bounded for a long fold. */
const MAX_SCRIPT_SAMPLE = 20_000;

function scriptCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [letter] of text.slice(0, MAX_SCRIPT_SAMPLE).matchAll(/\p{L}/gu)) {
    const name = SCRIPTS.find(([, pattern]) => pattern.test(letter))?.[0] ?? 'other';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

/**
 * Whether the summary is written in the conversation's script: its main script must be a fair share
 * of the conversation's letters. A Chinese conversation summarised in English (or the reverse) fails;
 * a conversation in two scripts may be summarised in either.
 */
export function sameScript(conversation: string, summary: string): boolean {
  const theirs = scriptCounts(conversation);
  const total = [...theirs.values()].reduce((sum, n) => sum + n, 0);
  if (total < MIN_LETTERS_TO_JUDGE) return true;
  const ours = [...scriptCounts(summary).entries()].sort((a, b) => b[1] - a[1])[0];
  if (!ours) return true;
  return (theirs.get(ours[0]) ?? 0) / total >= MIN_SCRIPT_SHARE;
}
