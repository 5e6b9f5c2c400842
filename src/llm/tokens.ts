/**
 * Token estimates with gpt-tokenizer's o200k encoding. Other providers tokenize differently, so
 * this is an estimate for trimming and warnings; the provider's reported usage wins for statistics.
 * The tokenizer is loaded on first use: its tables add ~60 MiB of memory and most turns never need
 * it (`maxMessageTokens` already proves they fit).
 */
import type { Logger } from 'pino';
import type { ChatMessage } from './types.js';

/** Role markers and separators the chat format adds around each message (OpenAI's documented ~3–4). */
const TOKENS_PER_MESSAGE = 4;
/** The reply primer the API appends once per request. */
export const TOKENS_PER_REQUEST = 3;
/** Warn when a prompt passes this share of the context window (spec: 80 %). */
export const CONTEXT_WARNING_RATIO = 0.8;

/** User text may contain "<|endoftext|>"; count it as plain text instead of throwing. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };
/** Rough English average, used only if the tokenizer fails. */
const CHARS_PER_TOKEN = 4;

type TextCounter = (text: string) => number;
let loading: Promise<TextCounter> | undefined;

/**
 * The o200k counter, loaded once; a tokenizer that fails to load falls back to the average. Its
 * counter is synchronous, for callers that count many texts or cache counts.
 */
export function loadTextCounter(): Promise<TextCounter> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then(
    ({ countTokens: countO200k }): TextCounter =>
      (text) => {
        if (!text) return 0;
        try {
          return countO200k(text, PLAIN_TEXT);
        } catch {
          return estimateByLength(text);
        }
      },
    (): TextCounter => estimateByLength,
  );
  return loading;
}

function estimateByLength(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export async function countTokens(text: string): Promise<number> {
  return (await loadTextCounter())(text);
}

/** Loads the tokenizer and returns a synchronous counter of messages (for counting many). */
export async function loadMessageCounter(): Promise<(messages: ChatMessage[]) => number> {
  const count = await loadTextCounter();
  return (messages) => sumMessages(messages, count);
}

export async function countMessageTokens(messages: ChatMessage[]): Promise<number> {
  return (await loadMessageCounter())(messages);
}

/**
 * An upper bound on `countMessageTokens` without tokenising: every o200k token covers at least one
 * UTF-8 byte, so a text has at most as many tokens as bytes. Cheap, where the tokenizer's large
 * Unicode split regex is not: V8 drops its compiled code when it sits unused between turns, and
 * recompiling it costs ~1–8 ms per turn.
 */
export function maxMessageTokens(messages: ChatMessage[]): number {
  return sumMessages(messages, (text) => Buffer.byteLength(text, 'utf8'));
}

function sumMessages(messages: ChatMessage[], count: (text: string) => number): number {
  let total = TOKENS_PER_REQUEST;
  for (const message of messages) total += messageTokens(message, count);
  return total;
}

/**
 * Tokens one message adds to a request, its texts counted with `count`: callers that count the same
 * texts again and again (a conversation growing round by round) pass a counter that caches them.
 */
export function messageTokens(message: ChatMessage, count: (text: string) => number): number {
  let total = TOKENS_PER_MESSAGE + count(message.content);
  if (message.role === 'assistant') {
    total += count(message.reasoning ?? '');
    for (const call of message.toolCalls ?? []) total += count(call.name) + count(call.arguments);
  }
  return total;
}

/** Logs a warning when `tokens` passes 80 % of `window`; returns whether it did. */
export function warnIfNearContextWindow(tokens: number, window: number, logger: Logger): boolean {
  if (window <= 0 || tokens < window * CONTEXT_WARNING_RATIO) return false;
  logger.warn(
    { tokens, contextWindow: window, percent: Math.round((tokens / window) * 100) },
    'prompt is near the model context window',
  );
  return true;
}
