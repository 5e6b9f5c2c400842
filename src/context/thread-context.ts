/**
 * Earlier thread messages → delimited context within a token budget: newest first until the budget
 * is spent, then shown oldest first (the order people wrote them). Bot messages (other bots, and
 * Scout's own answers, which are already in the history) are left out.
 */
import { loadMessageCounter } from '../llm/tokens.js';
import { delimitData } from './delimit.js';
import type { ThreadMessage } from './types.js';

/** Tokens of the per-line author prefix and newline, estimated without tokenising each name. */
const LINE_OVERHEAD = 6;
/** One message longer than this many characters is cut (a pasted log must not take the whole budget). */
const MAX_MESSAGE_CHARS = 4_000;

export interface ThreadSelection {
  /** Delimited block for the model ('' when nothing was included). */
  text: string;
  included: number;
  /** Human messages left out because the budget ran out. */
  leftOut: number;
  bots: number;
  tokens: number;
}

export type TextCounter = (text: string) => number;

/** A synchronous token counter of plain text (the tokenizer is loaded once, lazily, by src/llm). */
export async function loadTextCounter(): Promise<TextCounter> {
  const countMessages = await loadMessageCounter();
  const overhead = countMessages([{ role: 'user', content: '' }]);
  return (text) => countMessages([{ role: 'user', content: text }]) - overhead;
}

export function selectThreadMessages(
  newestFirst: ThreadMessage[],
  budgetTokens: number,
  countTokens: TextCounter,
): ThreadSelection {
  const lines: string[] = [];
  let tokens = 0;
  let bots = 0;
  let leftOut = 0;
  for (const message of newestFirst) {
    if (message.bot) {
      bots += 1;
      continue;
    }
    const names = (message.attachments ?? []).map((a) => a.name);
    let body = message.text.trim();
    if (body.length > MAX_MESSAGE_CHARS) body = `${body.slice(0, MAX_MESSAGE_CHARS)} […]`;
    if (names.length > 0) body = `${body}${body ? ' ' : ''}[attached: ${names.join(', ')}]`;
    if (!body) continue;
    const line = `${message.author.replace(/[\n\r:]/g, ' ').trim() || 'someone'}: ${body}`;
    const cost = countTokens(line) + LINE_OVERHEAD;
    if (leftOut > 0 || tokens + cost > budgetTokens) {
      leftOut += 1;
      continue;
    }
    tokens += cost;
    lines.push(line);
  }
  lines.reverse();
  return {
    text: lines.length > 0 ? delimitData('thread_messages', lines.join('\n')) : '',
    included: lines.length,
    leftOut,
    bots,
    tokens,
  };
}

/** Cuts `text` to about `budgetTokens` tokens (by characters, then checked), with a visible note. */
export function truncateToTokens(
  text: string,
  budgetTokens: number,
  countTokens: TextCounter,
): { text: string; truncated: boolean; tokens: number } {
  // Cheap upper bound first: o200k never has more tokens than UTF-8 bytes.
  if (Buffer.byteLength(text, 'utf8') <= budgetTokens)
    return { text, truncated: false, tokens: countTokens(text) };
  // Only the prefix that can fit is tokenised (≈4 chars per token, with room to spare).
  let cut = text.slice(0, budgetTokens * 6);
  let tokens = countTokens(cut);
  if (cut.length === text.length && tokens <= budgetTokens) return { text, truncated: false, tokens };
  while (tokens > budgetTokens && cut.length > 0) {
    cut = cut.slice(0, Math.floor(cut.length * Math.max(0.5, (budgetTokens / tokens) * 0.95)));
    tokens = countTokens(cut);
  }
  return { text: cut, truncated: true, tokens };
}
