/**
 * Keeps every request body strict JSON. `JSON.parse` accepts a lone UTF-16 surrogate (`"\uDfee"`)
 * and `JSON.stringify` writes one back as an escape, but stricter servers (llama.cpp) reject the
 * whole body with HTTP 500; a tool call cut at max_tokens has arguments that are not JSON at all.
 * Both would fail the same way on every retry, so they are repaired before sending.
 */
import type { ChatMessage } from './types.js';

/**
 * The text with every lone surrogate replaced by U+FFFD, by the engine's own scan (every message of
 * every request passes here, search results included: a regular expression was measurable per turn).
 */
export function wellFormed(text: string): string {
  return text.isWellFormed() ? text : text.toWellFormed();
}

/** A JSON value with lone surrogates replaced in every string, keys included. */
function wellFormedValue(value: unknown): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormedValue);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [wellFormed(k), wellFormedValue(v)]));
  }
  return value;
}

/**
 * Tool-call arguments as a JSON object text the strictest server accepts. Arguments that do not
 * parse to an object (cut mid-way, or a model writing prose) become `{}`; the tool's result already
 * told the model its call was malformed.
 */
export function strictArguments(raw: string): string {
  try {
    const parsed: unknown = JSON.parse(raw || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return JSON.stringify(wellFormedValue(parsed));
    }
  } catch {
    // not JSON: falls through to the empty object
  }
  return '{}';
}

/**
 * The conversation with every string well-formed (whatever the content's shape: text, or parts) and
 * every tool call's arguments a JSON object.
 */
export function strictMessages(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((message) => {
    const clean = wellFormedValue(message) as ChatMessage;
    if (clean.role === 'assistant' && clean.toolCalls) {
      clean.toolCalls = clean.toolCalls.map((call) => ({
        ...call,
        arguments: strictArguments(call.arguments),
      }));
    }
    return clean;
  });
}
